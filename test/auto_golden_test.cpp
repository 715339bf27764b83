// trace-rewrite --traced --auto (docs/auto.md) on inputs written without annotations: outputs
// equal their reviewed goldens in test/inputs/auto, compile with nvcc for sm_80 and sm_90, and
// obey the rules of --auto named by each test.
//
// Regenerate goldens after an intended change, then review the diff:
//   CUTRACE_UPDATE_GOLDENS=1 ./build/test/auto_golden_tests
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include "support/tree_paths.h"

namespace fs = std::filesystem;

namespace {

struct CommandResult {
  int Status = -1;
  std::string Output; // stdout and stderr together
};

CommandResult runCommand(const std::string &Command) {
  CommandResult R;
  FILE *Pipe = popen((Command + " 2>&1").c_str(), "r");
  if (!Pipe)
    return R;
  std::array<char, 4096> Chunk;
  size_t N;
  while ((N = fread(Chunk.data(), 1, Chunk.size(), Pipe)) > 0)
    R.Output.append(Chunk.data(), N);
  int Raw = pclose(Pipe);
  R.Status = WIFEXITED(Raw) ? WEXITSTATUS(Raw) : -1;
  return R;
}

std::string readFile(const fs::path &P) {
  std::ifstream In(P, std::ios::binary);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

std::string quote(const fs::path &P) { return "'" + P.string() + "'"; }

fs::path inputs() { return fs::path(CUTRACE_TEST_INPUTS); }

/// One golden: an existing input (relative to test/inputs) rewritten with these options.
struct AutoCase {
  std::string Name;  // the golden's stem in test/inputs/auto
  std::string Input; // relative to test/inputs
  std::string Options;
};

const std::vector<AutoCase> &cases() {
  static const std::vector<AutoCase> All = {
      // for, while, do, range-for, bodies without braces, nested loops, a loop in a lambda and
      // one spelled by a macro
      {"loop_forms", "auto/loop_forms.cu", "--auto"},
      {"loop_forms_warps", "auto/loop_forms.cu", "--auto=warps"},
      // return, break, continue and goto out of the body and the loop
      {"early_returns", "strip/range_with_early_exits.plain.cu", "--auto"},
      // a template kernel with #pragma unroll, launched as three instances
      {"templates", "strip/templated_kernel.plain.cu", "--auto"},
      // device lambdas in kernels, __device__ helpers called from kernels
      {"device_lambdas", "strip/device_helpers.plain.cu", "--auto"},
      // cooperative groups, a reduction loop and early exits of some threads
      {"softmax_cg", "strip/real_softmax_cg.plain.cu", "--auto"},
      // three kernels, one left out by a pattern
      {"selected_kernels", "strip/several_kernels_one_file.plain.cu",
       "--auto --auto-kernels=-untouched"},
      // a smaller row: fewer iterations kept densely
      {"small_rows", "auto/loop_forms.cu", "--auto --max-events 256 --clock globaltimer"},
  };
  return All;
}

struct AutoRun {
  CommandResult Result;
  fs::path Dir;
  std::string Name;
  fs::path traced() const { return Dir / (Name + ".traced.cu"); }
  fs::path map() const { return Dir / (Name + ".trace_map.h"); }
  fs::path json() const { return Dir / (Name + ".trace_map.json"); }
};

AutoRun runAuto(const std::string &Name, const std::string &Input, const std::string &Options) {
  AutoRun R;
  R.Name = Name;
  R.Dir = fs::temp_directory_path() / ("cutrace_auto_" + Name + "_" + std::to_string(getpid()));
  fs::remove_all(R.Dir);
  fs::create_directories(R.Dir);
  R.Result =
      runCommand("cd " + quote(inputs()) + " && " + CUTRACE_REWRITE_BIN + " --traced " + Options +
                 " " + Input + " -o " + quote(R.traced()) + " --map " + quote(R.map()));
  return R;
}

AutoRun runCase(const AutoCase &C) { return runAuto(C.Name, C.Input, C.Options); }

const AutoCase &caseNamed(const std::string &Name) {
  for (const AutoCase &C : cases())
    if (C.Name == Name)
      return C;
  ADD_FAILURE() << "no case " << Name;
  return cases().front();
}

std::vector<std::string> caseNames() {
  std::vector<std::string> Names;
  for (const AutoCase &C : cases())
    Names.push_back(C.Name);
  return Names;
}

class Auto : public ::testing::TestWithParam<std::string> {};

TEST_P(Auto, MatchesReviewedGolden) {
  AutoRun R = runCase(caseNamed(GetParam()));
  ASSERT_EQ(R.Result.Status, 0) << R.Result.Output;
  for (const std::string &Suffix : {".traced.cu", ".trace_map.h"}) {
    fs::path Golden = inputs() / "auto" / (GetParam() + Suffix);
    std::string Actual = readFile(R.Dir / (GetParam() + Suffix));
    if (std::getenv("CUTRACE_UPDATE_GOLDENS")) {
      std::ofstream(Golden, std::ios::binary) << Actual;
      continue;
    }
    ASSERT_TRUE(fs::exists(Golden))
        << "no golden " << Golden << "; run with CUTRACE_UPDATE_GOLDENS=1 and review it";
    EXPECT_EQ(Actual, readFile(Golden)) << "--auto output differs from " << Golden;
  }
}

// Compiles the reviewed golden, which MatchesReviewedGolden holds equal to the tool's output: the
// two tests together say the output compiles, with one rewrite of the input instead of two (and,
// through CUTRACE_NVCC_COMMAND's launcher, one nvcc compile per golden content, not per run).
TEST_P(Auto, CompilesWithNvccForSm80AndSm90) {
  const AutoCase &C = caseNamed(GetParam());
  fs::path Golden = inputs() / "auto" / (GetParam() + ".traced.cu");
  ASSERT_TRUE(fs::exists(Golden)) << "no golden " << Golden;
  fs::path Out = fs::temp_directory_path() /
                 ("cutrace_auto_nvcc_" + GetParam() + "_" + std::to_string(getpid()) + ".o");
  CommandResult Nvcc = runCommand(
      std::string(CUTRACE_NVCC_COMMAND) +
      " -std=c++17 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90"
      " -I " + CUTRACE_RUNTIME_INCLUDE + " -I " +
      quote(Golden.parent_path()) + " -I " + quote((inputs() / C.Input).parent_path()) + " -c " +
      quote(Golden) + " -o " + quote(Out));
  fs::remove(Out);
  EXPECT_EQ(Nvcc.Status, 0) << Nvcc.Output;
  EXPECT_EQ(Nvcc.Output.find("warning"), std::string::npos) << Nvcc.Output;
}

INSTANTIATE_TEST_SUITE_P(, Auto, ::testing::ValuesIn(caseNames()),
                         [](const auto &Info) { return Info.param; });

nlohmann::json mapOf(const AutoRun &R) {
  return nlohmann::json::parse(readFile(R.json()), nullptr, /*allow_exceptions=*/false);
}

std::vector<std::string> kernelsIn(const nlohmann::json &Map) {
  std::vector<std::string> Names;
  for (const nlohmann::json &K : Map["kernels"])
    Names.push_back(K["kernel"]);
  return Names;
}

size_t count(const std::string &Text, const std::string &Needle) {
  size_t N = 0;
  for (size_t P = Text.find(Needle); P != std::string::npos; P = Text.find(Needle, P + 1))
    ++N;
  return N;
}

TEST(AutoRules, EveryKernelDefinedInTheFileGetsATwin) {
  AutoRun R = runAuto("every", "strip/several_kernels_one_file.plain.cu", "--auto");
  ASSERT_EQ(R.Result.Status, 0) << R.Result.Output;
  EXPECT_EQ(kernelsIn(mapOf(R)), (std::vector<std::string>{"first", "untouched", "second"}));
  std::string Text = readFile(R.traced());
  for (const char *Twin :
       {"first_cutrace_traced(", "untouched_cutrace_traced(", "second_cutrace_traced("})
    EXPECT_NE(Text.find(Twin), std::string::npos) << Twin;
}

TEST(AutoRules, KernelPatternsSelectAndLeaveOut) {
  AutoRun Only = runAuto("only", "strip/several_kernels_one_file.plain.cu",
                         "--auto --auto-kernels='*ond,f?rst'");
  ASSERT_EQ(Only.Result.Status, 0) << Only.Result.Output;
  EXPECT_EQ(kernelsIn(mapOf(Only)), (std::vector<std::string>{"first", "second"}));
  AutoRun Except = runAuto("except", "strip/several_kernels_one_file.plain.cu",
                           "--auto --auto-kernels=-first,-second");
  ASSERT_EQ(Except.Result.Status, 0) << Except.Result.Output;
  EXPECT_EQ(kernelsIn(mapOf(Except)), (std::vector<std::string>{"untouched"}));
}

TEST(AutoRules, AnnotatedKernelKeepsItsOwnAnnotationsAndGetsNoAutomaticRanges) {
  // early_exits.cu holds one annotated kernel: --auto changes nothing in its traced output.
  AutoRun Auto = runAuto("early_exits", "traced/early_exits.cu", "--auto");
  AutoRun Annotated = runAuto("early_exits", "traced/early_exits.cu", "");
  ASSERT_EQ(Auto.Result.Status, 0) << Auto.Result.Output;
  ASSERT_EQ(Annotated.Result.Status, 0) << Annotated.Result.Output;
  EXPECT_NE(readFile(Annotated.traced()).find("cutrace::Range __cutrace_range_0"),
            std::string::npos);
  EXPECT_EQ(readFile(Auto.traced()), readFile(Annotated.traced()));
  EXPECT_EQ(readFile(Auto.map()), readFile(Annotated.map()));
}

TEST(AutoRules, OneRowPerCtaWrittenByThreadZeroOrOnePerWarp) {
  nlohmann::json Ctas = mapOf(runCase(caseNamed("loop_forms")));
  nlohmann::json Warps = mapOf(runCase(caseNamed("loop_forms_warps")));
  const nlohmann::json &C = Ctas["kernels"][0]["groups"];
  const nlohmann::json &W = Warps["kernels"][0]["groups"];
  ASSERT_EQ(C.size(), 1u);
  EXPECT_EQ(C[0]["name"], "cta");
  EXPECT_EQ(C[0]["lead"], "0");
  ASSERT_EQ(W.size(), 1u);
  EXPECT_EQ(W[0]["name"], "warp");
  EXPECT_EQ(W[0]["slice_threads"], 32);
}

TEST(AutoRules, TheLifeIsSiteZeroAndEachOutermostLoopASiteOfItsOwn) {
  AutoRun R = runCase(caseNamed("loop_forms"));
  nlohmann::json Sites = mapOf(R)["kernels"][0]["sites"];
  std::vector<std::string> Names;
  for (const nlohmann::json &S : Sites) {
    Names.push_back(S["name"]);
    EXPECT_EQ(S["kind"], "range");
  }
  // The nested loop, the lambda's loop and the macro's loop are not outermost loops of the body
  // the rewrite can edit.
  EXPECT_EQ(Names,
            (std::vector<std::string>{"loop_forms", "for (line 16)", "while (line 21)",
                                      "do (line 23)", "range-for (line 26)", "for (line 35)"}));
  std::string Text = readFile(R.traced());
  EXPECT_EQ(count(Text, "cutrace::Iteration __cutrace_iteration_"), 5u);
  EXPECT_EQ(count(Text, "cutrace::Life<"), 1u);
}

TEST(AutoRules, IterationsAreSampledSoARowStaysWithinMaxEvents) {
  // One loop in a row of 1024 events: 32 dense iterations; five loops: 4 each; a row of 256
  // with five loops: 2 each, and a warning that a long loop may still fill the row.
  std::string One = readFile(runCase(caseNamed("early_returns")).traced());
  EXPECT_NE(One.find("cutrace::Loop<cutrace::Group<1024>, 32>"), std::string::npos) << One;
  std::string Five = readFile(runCase(caseNamed("loop_forms")).traced());
  EXPECT_EQ(count(Five, "cutrace::Loop<cutrace::Group<1024>, 4>"), 5u) << Five;
  AutoRun Small = runCase(caseNamed("small_rows"));
  EXPECT_EQ(count(readFile(Small.traced()),
                  "cutrace::Loop<cutrace::Group<256, cutrace::Clock::globaltimer>, 2>"),
            5u);
  EXPECT_NE(Small.Result.Output.find("warning: kernel 'loop_forms' has 5 outermost loops"),
            std::string::npos)
      << Small.Result.Output;
}

TEST(AutoRules, OriginalKernelStaysAsWrittenAndTheTwinFollowsIt) {
  // Up to the twin, the traced file is the input byte for byte (after the lines added on top).
  AutoRun R = runCase(caseNamed("early_returns"));
  std::string Text = readFile(R.traced());
  std::string Input = readFile(inputs() / "strip" / "range_with_early_exits.plain.cu");
  size_t From = Text.find('\n', Text.find("#line 1 ")) + 1;
  size_t To = Text.find("#line ", From);
  ASSERT_NE(To, std::string::npos) << Text;
  std::string Original = Text.substr(From, To - From);
  EXPECT_EQ(Input.substr(0, Original.size()), Original);
  EXPECT_NE(Original.find("__global__ void exits(const int *in, int *out, int n) {"),
            std::string::npos);
  EXPECT_EQ(Text.substr(Text.find('\n', To) + 1, 37), "__global__ void exits_cutrace_traced(");
}

TEST(AutoRules, OptionsAreRefusedWhereTheyCannotApply) {
  std::string Tool = CUTRACE_REWRITE_BIN;
  std::string In = quote(inputs() / "auto" / "loop_forms.cu");
  fs::path Out = fs::temp_directory_path() / ("cutrace_auto_refused_" + std::to_string(getpid()));
  fs::remove_all(Out);
  struct Refusal {
    std::string Options, Message;
  };
  for (const Refusal &C : std::vector<Refusal>{
           {"--auto", "--auto needs --traced"},
           {"--traced --auto=blocks", "--auto must be ctas or warps"},
           {"--traced --auto-kernels=k", "--auto-kernels needs --auto"},
           {"--traced --auto --auto-kernels='[k'", "--auto-kernels pattern '[k'"}}) {
    CommandResult R = runCommand(Tool + " " + C.Options + " " + In + " -o " + quote(Out / "x.cu"));
    EXPECT_EQ(R.Status, 2) << C.Options << ": " << R.Output;
    EXPECT_NE(R.Output.find("trace-rewrite: error: " + C.Message), std::string::npos)
        << C.Options << ": " << R.Output;
    EXPECT_FALSE(fs::exists(Out)) << C.Options << " wrote output";
  }
}

} // namespace
