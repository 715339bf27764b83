// trace-rewrite --traced on test/inputs/traced: outputs equal their reviewed goldens, compile with
// nvcc for sm_80 and sm_90, and obey the traced rules (docs/design.md) named by each test.
//
// Regenerate goldens after an intended change, then review the diff:
//   CUTRACE_UPDATE_GOLDENS=1 ./build/test/traced_golden_tests
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

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

fs::path inputsDir() { return fs::path(CUTRACE_TEST_INPUTS) / "traced"; }

std::vector<std::string> tracedInputs() {
  std::vector<std::string> Names;
  for (const auto &E : fs::directory_iterator(inputsDir())) {
    std::string Name = E.path().filename().string();
    if (E.path().extension() == ".cu" && Name.find(".traced.") == std::string::npos)
      Names.push_back(E.path().stem().string());
  }
  std::sort(Names.begin(), Names.end());
  return Names;
}

/// Output of one traced run of an input, into a fresh directory.
struct TracedRun {
  CommandResult Result;
  fs::path Dir;
  fs::path traced() const { return Dir / (Stem + ".traced.cu"); }
  fs::path map() const { return Dir / (Stem + ".trace_map.h"); }
  fs::path json() const { return Dir / (Stem + ".trace_map.json"); }
  std::string Stem;
};

TracedRun runTraced(const std::string &Stem) {
  TracedRun T;
  T.Stem = Stem;
  T.Dir = fs::temp_directory_path() / ("cutrace_traced_" + Stem + "_" + std::to_string(getpid()));
  fs::remove_all(T.Dir);
  fs::create_directories(T.Dir);
  T.Result = runCommand(std::string("cd ") + quote(inputsDir()) + " && " + CUTRACE_REWRITE_BIN +
                        " --traced " + Stem + ".cu -o " + quote(T.traced()));
  return T;
}

std::optional<std::string> expectedError(const std::string &Stem) {
  std::smatch M;
  std::string Text = readFile(inputsDir() / (Stem + ".cu"));
  static const std::regex Expect(R"(// EXPECT: ([0-9]+:[0-9]+: .+))");
  if (std::regex_search(Text, M, Expect))
    return M[1].str();
  return std::nullopt;
}

class Traced : public ::testing::TestWithParam<std::string> {};

TEST_P(Traced, MatchesReviewedGolden) {
  TracedRun T = runTraced(GetParam());
  if (std::optional<std::string> Error = expectedError(GetParam())) {
    EXPECT_EQ(T.Result.Status, 1) << T.Result.Output;
    EXPECT_NE(T.Result.Output.find(GetParam() + ".cu:" + *Error), std::string::npos)
        << T.Result.Output;
    EXPECT_FALSE(fs::exists(T.traced()) || fs::exists(T.map())) << "a failing run wrote output";
    return;
  }
  ASSERT_EQ(T.Result.Status, 0) << T.Result.Output;
  for (const std::string &Suffix : {".traced.cu", ".trace_map.h"}) {
    fs::path Golden = inputsDir() / (GetParam() + Suffix);
    std::string Actual = readFile(T.Dir / (GetParam() + Suffix));
    if (std::getenv("CUTRACE_UPDATE_GOLDENS")) {
      std::ofstream(Golden, std::ios::binary) << Actual;
      continue;
    }
    ASSERT_TRUE(fs::exists(Golden))
        << "no golden " << Golden << "; run with CUTRACE_UPDATE_GOLDENS=1 and review it";
    EXPECT_EQ(Actual, readFile(Golden)) << "traced output differs from " << Golden;
  }
}

TEST_P(Traced, CompilesWithNvccForSm80AndSm90) {
  if (expectedError(GetParam()))
    GTEST_SKIP() << "input is expected to be rejected";
  TracedRun T = runTraced(GetParam());
  ASSERT_EQ(T.Result.Status, 0) << T.Result.Output;
  CommandResult Nvcc =
      runCommand(std::string(CUTRACE_NVCC) +
                 " -std=c++17 -gencode arch=compute_80,code=sm_80"
                 " -gencode arch=compute_90,code=sm_90 -I " CUTRACE_RUNTIME_INCLUDE " -I " +
                 quote(T.Dir) + " -c " + quote(T.traced()) + " -o " + quote(T.Dir / "out.o"));
  EXPECT_EQ(Nvcc.Status, 0) << Nvcc.Output;
  EXPECT_EQ(Nvcc.Output.find("warning"), std::string::npos) << Nvcc.Output;
}

INSTANTIATE_TEST_SUITE_P(, Traced, ::testing::ValuesIn(tracedInputs()),
                         [](const auto &Info) { return Info.param; });

// Rule tests read the map JSON and the traced text of one input each.
struct Rewritten {
  std::string Text;
  nlohmann::json Map;
  std::string Diagnostics;
};

Rewritten rewrite(const std::string &Stem) {
  TracedRun T = runTraced(Stem);
  Rewritten R;
  R.Diagnostics = T.Result.Output;
  EXPECT_EQ(T.Result.Status, 0) << T.Result.Output;
  R.Text = readFile(T.traced());
  R.Map = nlohmann::json::parse(readFile(T.json()), nullptr, /*allow_exceptions=*/false);
  return R;
}

const nlohmann::json &kernel(const Rewritten &R, const std::string &Name) {
  for (const nlohmann::json &K : R.Map["kernels"])
    if (K["kernel"] == Name)
      return K;
  static const nlohmann::json None;
  ADD_FAILURE() << "kernel " << Name << " not in the map";
  return None;
}

/// The group index that the site named Name (first of that name) records into.
int groupOfSite(const nlohmann::json &K, const std::string &Name) {
  for (const nlohmann::json &S : K["sites"])
    if (S["name"] == Name)
      return S["group"];
  return -1;
}

size_t count(const std::string &Text, const std::string &Needle) {
  size_t N = 0;
  for (size_t P = Text.find(Needle); P != std::string::npos; P = Text.find(Needle, P + 1))
    ++N;
  return N;
}

TEST(TracedRules, RangeClosedOnEveryExitByScopeObject) {
  // return, break, continue and goto all leave the block: a scope object's destructor runs on
  // each, so every TRACE_RANGE must become a cutrace::Range declared where the annotation was.
  Rewritten R = rewrite("early_exits");
  EXPECT_EQ(count(R.Text, "cutrace::Range __cutrace_range_"), 2u) << R.Text;
  EXPECT_NE(R.Text.find("  for (int k = 0; k < n; ++k) {\n    cutrace::Range __cutrace_range_2("
                        "__cutrace_block, 2, (k));\n    if (flags[k] == 1)\n      continue;"),
            std::string::npos)
      << R.Text;
  EXPECT_EQ(R.Text.find(".end("), std::string::npos) << "ranges must not be closed by hand";
}

TEST(TracedRules, NestedGroupsShadowUntilEndOfBlock) {
  Rewritten R = rewrite("nested_groups");
  const nlohmann::json &K = kernel(R, "nested_groups");
  std::vector<std::string> Groups;
  for (const nlohmann::json &G : K["groups"])
    Groups.push_back(G["name"]);
  EXPECT_EQ(Groups, (std::vector<std::string>{"block", "producer", "producer_inner", "consumer"}));
  EXPECT_EQ(groupOfSite(K, "start"), 0);
  EXPECT_EQ(groupOfSite(K, "load"), 1);
  EXPECT_EQ(groupOfSite(K, "inner"), 2);
  EXPECT_EQ(groupOfSite(K, "after_inner"), 1) << "the inner group ends with its block";
  EXPECT_EQ(groupOfSite(K, "compute"), 3);
  EXPECT_EQ(groupOfSite(K, "end"), 0);
  EXPECT_EQ(K["groups"][3]["lead"], "32");
}

TEST(TracedRules, TwoKernelsPerFileEachGetAMapOthersUntouched) {
  Rewritten R = rewrite("two_kernels");
  ASSERT_EQ(R.Map["kernels"].size(), 2u);
  EXPECT_EQ(R.Map["kernels"][0]["kernel"], "scale");
  EXPECT_EQ(R.Map["kernels"][1]["kernel"], "shift");
  EXPECT_NE(R.Text.find("__global__ void untouched(float *x) { x[0] = 0.0f; }"), std::string::npos);
  EXPECT_NE(R.Text.find("  untouched<<<1, 1>>>(x);\n"), std::string::npos);
  EXPECT_NE(R.Text.find("shift<<<(n + 255) / 256, 256, 0, stream>>>(x, 1.0f, n, "
                        "cutrace::launch(cutrace_map::shift, (n + 255) / 256, 256, stream));"),
            std::string::npos)
      << R.Text;
}

TEST(TracedRules, TemplateKernelWithTwoInstantiationsSharesOneMap) {
  Rewritten R = rewrite("template_kernel");
  ASSERT_EQ(R.Map["kernels"].size(), 1u);
  EXPECT_EQ(R.Map["kernels"][0]["sites"].size(), 1u) << "one edit per spelled location";
  EXPECT_EQ(count(R.Text, "cutrace::Slots* __cutrace_slots"), 1u);
  EXPECT_EQ(count(R.Text, "cutrace::launch(cutrace_map::fill,"), 2u) << R.Text;
}

TEST(TracedRules, KernelDeclaredThenDefinedGetsDefaultOnFirstDeclaration) {
  Rewritten R = rewrite("declared_then_defined");
  EXPECT_NE(R.Text.find("__global__ void later(int *out, cutrace::Slots* __cutrace_slots = "
                        "nullptr);"),
            std::string::npos);
  EXPECT_NE(R.Text.find("__global__ void later(int *out, cutrace::Slots* __cutrace_slots) {"),
            std::string::npos);
  EXPECT_NE(R.Text.find("__global__ void noargs(cutrace::Slots* __cutrace_slots = nullptr);"),
            std::string::npos);
  EXPECT_NE(R.Text.find("noargs<<<1, 1>>>(cutrace::launch(cutrace_map::noargs, 1, 1, 0));"),
            std::string::npos);
}

TEST(TracedRules, LaunchesInLambdasAndWithTwoToFourParametersAreRewritten) {
  Rewritten R = rewrite("launch_in_lambda");
  EXPECT_NE(
      R.Text.find("work<<<blocks, 32>>>(x, cutrace::launch(cutrace_map::work, blocks, 32, 0))"),
      std::string::npos);
  EXPECT_NE(R.Text.find("work<<<1, 32, 0>>>(x, cutrace::launch(cutrace_map::work, 1, 32, 0))"),
            std::string::npos);
  EXPECT_NE(R.Text.find("work<<<1, 32, 128, s>>>(x, cutrace::launch(cutrace_map::work, 1, 32, s))"),
            std::string::npos);
}

TEST(TracedRules, UnrewritableLaunchesAreWarnedAboutWithTheExplicitApi) {
  Rewritten R = rewrite("launch_in_lambda");
  EXPECT_NE(R.Diagnostics.find("launch_in_lambda.cu:17:3: warning: launch of 'work' cannot be "
                               "rewritten (inside a macro expansion)"),
            std::string::npos)
      << R.Diagnostics;
  EXPECT_NE(R.Diagnostics.find("launch_in_lambda.cu:19:3: warning: launch of 'work' cannot be "
                               "rewritten (launched through the CUDA launch API)"),
            std::string::npos);
  EXPECT_NE(R.Diagnostics.find("cutrace::Recorder"), std::string::npos);
}

TEST(TracedRules, LanesAndEventNamesAreInternedPayloadFromLoopVariable) {
  Rewritten R = rewrite("interning");
  const nlohmann::json &K = kernel(R, "interning");
  EXPECT_EQ(K["lanes"], nlohmann::json({"copy", "compute"}));
  ASSERT_EQ(K["sites"].size(), 4u);
  EXPECT_EQ(K["sites"][2]["name"], "tick");
  EXPECT_EQ(K["sites"][2]["lane"], 0);
  EXPECT_EQ(K["sites"][3]["lane"], 1);
  EXPECT_EQ(K["sites"][1]["loc"], "interning.cu:9:16");
  EXPECT_EQ(K["flows"], nlohmann::json::parse(R"([{"src":"load","dst":"math"}])"));
  EXPECT_NE(R.Text.find("__cutrace_block.start(1, (k * 2));"), std::string::npos) << R.Text;
  EXPECT_NE(R.Text.find("__cutrace_block.end(tok);"), std::string::npos);
}

TEST(TracedRules, TracedOutputCarriesBannerThatVerifyStripRejects) {
  TracedRun T = runTraced("two_kernels");
  ASSERT_EQ(T.Result.Status, 0);
  EXPECT_EQ(readFile(T.traced()).rfind("// Generated by trace-rewrite --traced", 0), 0u);
  CommandResult Verify =
      runCommand(std::string(CUTRACE_REWRITE_BIN) + " --verify-strip " + quote(T.traced()));
  EXPECT_EQ(Verify.Status, 1);
  EXPECT_NE(Verify.Output.find("file contains code generated by trace-rewrite --traced"),
            std::string::npos);
}

} // namespace
