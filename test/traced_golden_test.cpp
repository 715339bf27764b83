// trace-rewrite --traced on test/inputs/traced: outputs equal their reviewed goldens, compile with
// nvcc for sm_80, sm_90 and sm_90a (Hopper's arch-specific code paths), and obey the traced rules
// (docs/design.md) named by each test.
//
// Regenerate goldens after an intended change, then review the diff:
//   CUTRACE_UPDATE_GOLDENS=1 ./build/test/traced_golden_tests
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
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

/// The options an input names in a `// ARGS: ...` line (the arch its code needs), with a space
/// before them.
std::string argsOf(const std::string &Stem) {
  std::smatch M;
  std::string Text = readFile(inputsDir() / (Stem + ".cu"));
  static const std::regex Args(R"(// ARGS: ([^\n]+))");
  return std::regex_search(Text, M, Args) ? " " + M[1].str() : "";
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
                        " --traced " + Stem + ".cu -o " + quote(T.traced()) + argsOf(Stem));
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
  // Header copies (an input whose annotated code lives in its own headers) are reviewed too, and
  // sit beside the golden so that CompilesWithNvccForSm80Sm90AndSm90a compiles what was reviewed.
  const std::string Headers = GetParam() + ".traced.headers";
  std::set<std::string> Written, Reviewed;
  if (fs::exists(T.Dir / Headers))
    for (const auto &E : fs::recursive_directory_iterator(T.Dir / Headers))
      if (E.is_regular_file())
        Written.insert(fs::relative(E.path(), T.Dir).generic_string());
  if (fs::exists(inputsDir() / Headers))
    for (const auto &E : fs::recursive_directory_iterator(inputsDir() / Headers))
      if (E.is_regular_file())
        Reviewed.insert(fs::relative(E.path(), inputsDir()).generic_string());
  // The copies' #line directives name the headers by full path: the golden names the folder of
  // the inputs @INPUTS@, so that it holds wherever the checkout is.
  auto Portable = [](std::string Text) {
    const std::string Dir = inputsDir().generic_string();
    for (size_t At = Text.find(Dir); At != std::string::npos; At = Text.find(Dir, At))
      Text.replace(At, Dir.size(), "@INPUTS@");
    return Text;
  };
  for (const std::string &Copy : Written) {
    fs::path Golden = inputsDir() / Copy;
    if (std::getenv("CUTRACE_UPDATE_GOLDENS")) {
      fs::create_directories(Golden.parent_path());
      std::ofstream(Golden, std::ios::binary) << Portable(readFile(T.Dir / Copy));
      Reviewed.insert(Copy);
      continue;
    }
    EXPECT_EQ(Portable(readFile(T.Dir / Copy)), Reviewed.count(Copy) ? readFile(Golden) : "")
        << "header copy differs from " << Golden;
  }
  EXPECT_EQ(Written, Reviewed) << "the header copies written are not the reviewed ones";
}

// Compiles the reviewed golden, which MatchesReviewedGolden holds equal to the tool's output: the
// two tests together say the output compiles, with one rewrite of the input instead of two (and,
// through CUTRACE_NVCC_COMMAND's launcher, one nvcc compile per golden content, not per run).
TEST_P(Traced, CompilesWithNvccForSm80Sm90AndSm90a) {
  if (expectedError(GetParam()))
    GTEST_SKIP() << "input is expected to be rejected";
  fs::path Golden = inputsDir() / (GetParam() + ".traced.cu");
  ASSERT_TRUE(fs::exists(Golden)) << "no golden " << Golden;
  fs::path Out = fs::temp_directory_path() /
                 ("cutrace_traced_nvcc_" + GetParam() + "_" + std::to_string(getpid()) + ".o");
  CommandResult Nvcc =
      runCommand(std::string(CUTRACE_NVCC_COMMAND) +
                 " -std=c++17 -gencode arch=compute_80,code=sm_80"
                 " -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90a,code=sm_90a"
                 " -I " + CUTRACE_RUNTIME_INCLUDE + " -I " +
                 quote(inputsDir()) + " -c " + quote(Golden) + " -o " + quote(Out));
  fs::remove(Out);
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

/// The groups a site may record into: its `groups`, else its `group`.
std::vector<int> groupsOfSite(const nlohmann::json &K, const std::string &Name) {
  for (const nlohmann::json &S : K["sites"])
    if (S["name"] == Name)
      return S.contains("groups") ? S["groups"].get<std::vector<int>>()
                                  : std::vector<int>{S["group"].get<int>()};
  return {};
}

TEST(TracedRules, DeviceOnlyKernelBodyGetsItsTwinAndRoutesThoughTheHostPassSawEveryAnnotation) {
  // The host pass sees `scaled` and its range, but not the kernel's body: the device
  // compilation decides that the kernel calls it.
  Rewritten R = rewrite("device_only_kernel_body");
  EXPECT_NE(R.Text.find("x[threadIdx.x] = scaled_cutrace_traced(__cutrace_worker_0, x[threadIdx.x]);"),
            std::string::npos)
      << R.Text;
  const nlohmann::json &K = kernel(R, "device_only_body");
  EXPECT_EQ(groupOfSite(K, "scale"), 0);
  EXPECT_EQ(R.Diagnostics.find("not called from any kernel"), std::string::npos) << R.Diagnostics;
}

TEST(TracedRules, CopiesWriteTheCounterValuesTheirOriginalsGotAndSayWhereTheyCannot) {
  Rewritten R = rewrite("counter_values_in_copies");
  // One value per pass where a device-only function before the twin took one.
  EXPECT_NE(R.Text.find("#if defined(__CUDA_ARCH__)\n1\n#else\n0\n#endif\n#line 19 "),
            std::string::npos)
      << R.Text;
  // The original keeps __COUNTER__ as written, the twin's copy none but its payload's: the
  // comment at the top, the _Pragma macro's definition, device_only, the original's three, the
  // twin's payload and the function after.
  EXPECT_EQ(count(R.Text, "__COUNTER__"), 1u + 1u + 1u + 3u + 1u + 1u) << R.Text;
  EXPECT_NE(R.Diagnostics.find("counter_values_in_copies.cu:29:3: warning: this expands "
                               "__COUNTER__, and the traced build cannot write the value"),
            std::string::npos)
      << R.Diagnostics;
  EXPECT_NE(R.Diagnostics.find("counter_values_in_copies.cu:23:3: warning: this annotation's "
                               "arguments expand __COUNTER__"),
            std::string::npos)
      << R.Diagnostics;
}

TEST(TracedRules, TemplatesTheUnitNeverInstantiatesAreNotWarnedAbout) {
  Rewritten R = rewrite("uninstantiated_template_helpers");
  EXPECT_NE(R.Diagnostics.find("uninstantiated_template_helpers.cu:39:5: warning: 'step' is not "
                               "called from any kernel"),
            std::string::npos)
      << R.Diagnostics;
  EXPECT_EQ(count(R.Diagnostics, "warning"), 1u) << R.Diagnostics;
  EXPECT_EQ(groupOfSite(kernel(R, "gemm"), "load_ss"), 0);
}

TEST(TracedRules, CallOnlyUnderCudaArchReachesTheHelpersTwin) {
  Rewritten R = rewrite("device_only_helper_call");
  EXPECT_NE(R.Text.find("halve_cutrace_traced(__cutrace_block, x[threadIdx.x])"), std::string::npos)
      << R.Text;
  EXPECT_EQ(groupOfSite(kernel(R, "calls_under_arch"), "halve"), 0);
  EXPECT_EQ(R.Diagnostics.find("warning"), std::string::npos) << R.Diagnostics;
}

TEST(TracedRules, CallOnlyTheHostCompilationSeesStaysAsWrittenAndItsCalleeIsWarnedAbout) {
  Rewritten R = rewrite("host_only_helper_call");
  EXPECT_EQ(R.Text.find("calls_on_host_side_cutrace_traced"), std::string::npos) << R.Text;
  EXPECT_EQ(R.Text.find("twice_cutrace_traced(__cutrace"), std::string::npos) << R.Text;
  EXPECT_NE(R.Diagnostics.find("host_only_helper_call.cu:6:3: warning: 'twice' is not called from "
                               "any kernel, so its annotations record nothing"),
            std::string::npos)
      << R.Diagnostics;
  EXPECT_TRUE(R.Map["kernels"].empty()) << R.Map.dump();
}

TEST(TracedRules, BodyUnderTheArchFeatureGuardIsTracedByThatArchsDevicePass) {
  Rewritten R = rewrite("device_only_sm90_feature");
  const nlohmann::json &K = kernel(R, "hopper_only");
  ASSERT_EQ(K["groups"].size(), 1u);
  EXPECT_EQ(K["groups"][0]["name"], "hopper");
  EXPECT_EQ(groupOfSite(K, "tile"), 0);
  EXPECT_NE(R.Text.find("acc += tile_of_cutrace_traced(__cutrace_hopper_0, k);"), std::string::npos)
      << R.Text;
}

TEST(TracedRules, GroupsDeclaredTogetherHandCalleesTheGroupEachThreadWrites) {
  // CUTLASS 3's shape under its arch guard: the groups at the top of operator(), the
  // collective's load() and mma() called by the producer warp and the consumer warpgroups.
  Rewritten R = rewrite("arch_guarded_operator_groups");
  EXPECT_NE(R.Text.find("cutrace::WriterOf __cutrace_consumer_g1_and_before(__cutrace_consumer_g1, "
                        "__cutrace_producer_g0);"),
            std::string::npos)
      << R.Text;
  EXPECT_NE(R.Text.find("collective.load_cutrace_traced(__cutrace_consumer_g1_and_before, "),
            std::string::npos);
  EXPECT_NE(R.Text.find("collective.mma_cutrace_traced(__cutrace_consumer_g1_and_before, "),
            std::string::npos);
  const nlohmann::json &K = kernel(R, "device_kernel");
  EXPECT_EQ(groupsOfSite(K, "load"), (std::vector<int>{1, 0}));
  EXPECT_EQ(groupsOfSite(K, "mma"), (std::vector<int>{1, 0}));
  EXPECT_EQ(R.Diagnostics.find("warning"), std::string::npos) << R.Diagnostics;
}

TEST(TracedRules, GroupsDeclaredTogetherInAKernelRecordThroughOneWriterOfUntilANestedGroup) {
  Rewritten R = rewrite("groups_declared_together");
  EXPECT_NE(R.Text.find("cutrace::WriterOf __cutrace_writer_of_1_0(__cutrace_consumer_1, "
                        "__cutrace_producer_0);"),
            std::string::npos)
      << R.Text;
  EXPECT_NE(R.Text.find("cutrace::Range __cutrace_range_0(__cutrace_writer_of_1_0, 0, (k));"),
            std::string::npos);
  EXPECT_NE(R.Text.find("stage_cutrace_traced(__cutrace_writer_of_1_0, acc, k)"), std::string::npos);
  const nlohmann::json &K = kernel(R, "warp_specialized");
  EXPECT_EQ(groupsOfSite(K, "step"), (std::vector<int>{1, 0}));
  EXPECT_EQ(groupsOfSite(K, "stage"), (std::vector<int>{1, 0}));
  EXPECT_EQ(groupsOfSite(K, "store"), (std::vector<int>{2})); // the nested group shadows them
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

TEST(TracedRules, GroupNameIdentifiesOneRowConstructedAtKernelEntry) {
  // "producer" is declared in the prologue and again inside the k-loop: one group, one object
  // constructed at the kernel's entry, so re-running the loop never restarts its row.
  Rewritten R = rewrite("loop_groups");
  const nlohmann::json &K = kernel(R, "loop_groups");
  std::vector<std::string> Groups;
  for (const nlohmann::json &G : K["groups"])
    Groups.push_back(G["name"]);
  EXPECT_EQ(Groups, (std::vector<std::string>{"producer", "consumer"}));
  EXPECT_EQ(groupOfSite(K, "prologue"), 0);
  EXPECT_EQ(groupOfSite(K, "tma_issue"), 0);
  EXPECT_EQ(groupOfSite(K, "issued"), 0);
  EXPECT_EQ(groupOfSite(K, "mma"), 1);
  EXPECT_EQ(count(R.Text, "cutrace::Group<1024> __cutrace_producer_0("), 1u) << R.Text;
  size_t Entry = R.Text.find("loop_groups_cutrace_traced(");
  size_t Loop = R.Text.find("for (int kt = 0;", Entry);
  EXPECT_LT(
      R.Text.find("cutrace::Group<1024> __cutrace_consumer_1(__cutrace_slots, 1, 2, 32);", Entry),
      Loop)
      << "a group declared in a loop is constructed before the loop\n"
      << R.Text;
}

TEST(TracedRules, SlicedGroupsCountRowsFromTheBlockSize) {
  Rewritten R = rewrite("slice_groups");
  const nlohmann::json &K = kernel(R, "slice_groups");
  ASSERT_EQ(K["groups"].size(), 3u);
  EXPECT_FALSE(K["groups"][0].contains("slice_threads"));
  EXPECT_EQ(K["groups"][1]["slice_threads"], 128);
  EXPECT_EQ(K["groups"][1]["first_thread"], 128);
  EXPECT_EQ(K["groups"][2]["slice_threads"], 32);
  EXPECT_EQ(K["groups"][2]["first_thread"], 0);
  // The warp rows come after the producer row and the consumer warpgroups' rows.
  EXPECT_NE(R.Text.find("__cutrace_warp_2(__cutrace_slots, 1 + cutrace::slices_in("
                        "cutrace::cta_threads(), 128, 128), __cutrace_rows, "
                        "cutrace::Slices{32, 0});"),
            std::string::npos)
      << R.Text;
  std::string Header = readFile(inputsDir() / "slice_groups.trace_map.h");
  EXPECT_NE(Header.find("slice_groups_slices[] = {{1, 128, 128}, {2, 32, 0}};"), std::string::npos);
}

TEST(TracedRules, PredicatedMarkersJoinTheStorePredicateWithoutABranch) {
  Rewritten R = rewrite("slice_groups");
  EXPECT_NE(R.Text.find("__cutrace_consumer_1.instant_if((t % 8 == 0), 2, (t));"),
            std::string::npos)
      << R.Text;
  EXPECT_NE(R.Text.find("cutrace::RangeIf __cutrace_range_3(__cutrace_warp_2, (row % 2 == 0), 3, "
                        "(row));"),
            std::string::npos)
      << R.Text;
  EXPECT_EQ(R.Text.find("if (t % 8"), std::string::npos) << "no branch is added";
  const nlohmann::json &K = kernel(R, "slice_groups");
  EXPECT_EQ(K["sites"][2]["kind"], "record");
  EXPECT_EQ(K["sites"][3]["kind"], "range");
}

TEST(TracedRules, ComputedLeadChosenWhereTheGroupIsDeclared) {
  Rewritten R = rewrite("computed_lead");
  EXPECT_NE(R.Text.find("__cutrace_leader_0(__cutrace_slots, 0, 1, "
                        "cutrace::LeadAtDeclaration{});"),
            std::string::npos)
      << R.Text;
  EXPECT_NE(R.Text.find("  __cutrace_leader_0.lead((leader));\n"), std::string::npos) << R.Text;
}

TEST(TracedRules, HelperMarkersRecordIntoTheCallersGroupAtSitesItsTypeNames) {
  Rewritten R = rewrite("device_helpers");
  const nlohmann::json &K = kernel(R, "rows");
  std::map<std::string, std::string> HelperOf;
  for (const nlohmann::json &S : K["sites"])
    HelperOf[S["name"]] = S.value("helper", "");
  EXPECT_EQ(HelperOf["tile"], "");
  EXPECT_EQ(HelperOf["finish"], "") << "a lambda's marker belongs to its kernel";
  EXPECT_EQ(HelperOf["warp_sum"], "warp_sum") << "reached through load_tile";
  EXPECT_EQ(HelperOf["load"], "load_tile");
  EXPECT_EQ(HelperOf["scale_sampled"], "scale");
  // One twin per helper, taking the caller's group first; the kernel passes the group in scope.
  EXPECT_NE(R.Text.find("template <int N, class __CutraceGroup> __device__ float "
                        "load_tile_cutrace_traced(__CutraceGroup &__cutrace_group, const float *p, "
                        "int tile) {"),
            std::string::npos)
      << R.Text;
  EXPECT_NE(R.Text.find("return warp_sum_cutrace_traced(__cutrace_group, acc);"),
            std::string::npos);
  EXPECT_NE(R.Text.find("float v = load_tile_cutrace_traced<4>(__cutrace_warp_0, in, t);"),
            std::string::npos);
  EXPECT_NE(R.Text.find("__cutrace_group.instant_if((t % 8 == 0), "
                        "__CutraceGroup::sites::scale_21, (t));"),
            std::string::npos)
      << R.Text;
  // The unannotated kernel's original keeps calling the originals; its twin calls the twins,
  // recording into its block group.
  EXPECT_NE(R.Text.find("out[threadIdx.x] = scale(warp_sum(in[threadIdx.x]), 3);"),
            std::string::npos);
  EXPECT_NE(R.Text.find("out[threadIdx.x] = scale_cutrace_traced(__cutrace_block, "
                        "warp_sum_cutrace_traced(__cutrace_block, in[threadIdx.x]), 3);"),
            std::string::npos)
      << R.Text;
  std::string Header = readFile(inputsDir() / "device_helpers.trace_map.h");
  EXPECT_NE(Header.find("struct rows_sites {"), std::string::npos) << Header;
}

TEST(TracedRules, HelperNoKernelReachesWarnsAndGetsNoTwin) {
  Rewritten R = rewrite("helper_uncalled");
  EXPECT_NE(R.Diagnostics.find("helper_uncalled.cu:7:3: warning: 'halve' is not called from "
                               "any kernel, so its annotations record nothing"),
            std::string::npos)
      << R.Diagnostics;
  EXPECT_EQ(R.Text.find("halve_cutrace_traced"), std::string::npos) << R.Text;
  EXPECT_NE(R.Text.find("return halve(v);"), std::string::npos);
}

TEST(TracedRules, SampledStatementStandsTwiceWithItsMarkersOnlyWhereTheConditionHolds) {
  Rewritten R = rewrite("sampled_statements");
  const size_t None = std::string::npos;
  size_t Twin = R.Text.find("void sampled_gemm_cutrace_traced(");
  ASSERT_NE(Twin, None) << R.Text;
  std::string Original = R.Text.substr(0, Twin);
  EXPECT_EQ(Original.find("local % 8"), None) << "the original loses the annotation as strip does";
  // The twin: the condition opens the copy with markers, the copy as strip writes it follows in
  // the else branch, under the source's line numbers.
  size_t If = R.Text.find("if ((local % 8 == 0)) {\n    for (int kt = 0; kt < k_tiles; ++kt) {\n"
                          "      cutrace::Range __cutrace_range_0(",
                          Twin);
  ASSERT_NE(If, None) << R.Text;
  size_t Else = R.Text.find("}} else {\n#line 33 \"sampled_statements.cu\"\n    for (int kt = 0; "
                            "kt < k_tiles; ++kt) {\n",
                            If);
  ASSERT_NE(Else, None) << R.Text;
  size_t Close = R.Text.find("\n    }\n#line 40 \"sampled_statements.cu\"\n", Else);
  ASSERT_NE(Close, None) << R.Text;
  std::string Plain = R.Text.substr(Else, Close - Else);
  EXPECT_EQ(Plain.find("cutrace"), None) << "no marker code in the plain copy:\n" << Plain;
  EXPECT_NE(Plain.find("acc[kt % 4] += in[tile * k_tiles + kt];"), None) << Plain;
  // A `#pragma unroll` between the annotation and its loop stays with both copies.
  EXPECT_EQ(count(R.Text.substr(Twin), "#pragma unroll\n    for (int i = 0; i < 4; ++i) {"), 2u);
  // In a member's twin, the plain copy calls the original member, which records nothing.
  EXPECT_NE(R.Text.find("} else {\n#line 18 \"sampled_statements.cu\"\n"), None) << R.Text;
  EXPECT_NE(R.Text.find("    for (int kt = 0; kt < k_tiles; ++kt, ++stage) {\n      wait(stage);\n"
                        "#line 22"),
            None)
      << R.Text;
  // TRACE_SAMPLE_REST: the rest of the block, the accumulator's declaration included.
  EXPECT_NE(R.Text.find("    if ((tile % 8 == 0)) {\n    float acc[4] = {};\n"), None) << R.Text;
  EXPECT_NE(R.Text.find("} else {\n#line 70 \"sampled_statements.cu\"\n    float acc[4] = {};\n"
                        "    for (int kt = 0; kt < k_tiles; ++kt) {\n#line 73"),
            None)
      << R.Text;
  // Sampling adds no site: the map lists the markers once.
  EXPECT_EQ(kernel(R, "sampled_gemm")["sites"].size(), 5u);
  EXPECT_NE(R.Diagnostics.find("sampled_statements.cu:54:3: warning: TRACE_SAMPLE samples a "
                               "statement that records nothing"),
            None)
      << R.Diagnostics;
}

// The second copy of a wgmma loop cost as much as recording every iteration on some kernels
// (docs/PERFORMANCE.md, section 9): the rewrite says so where the sample stands, and says where
// to record instead; a sample of a loop without wgmma gets no such word.
TEST(TracedRules, ASampleOfCodeThatIssuesWgmmaIsWarnedAbout) {
  Rewritten R = rewrite("sampled_wgmma_loop");
  const std::string Warning = "warning: TRACE_SAMPLE samples code that issues wgmma";
  EXPECT_NE(R.Diagnostics.find("sampled_wgmma_loop.cu:28:3: " + Warning), std::string::npos)
      << R.Diagnostics;
  EXPECT_NE(R.Diagnostics.find("record once per tile outside the k-loop instead"),
            std::string::npos)
      << R.Diagnostics;
  EXPECT_EQ(count(R.Diagnostics, Warning), 1u) << "the loop without wgmma is not warned about:\n"
                                               << R.Diagnostics;
}

TEST(TracedRules, KernelWithoutAnnotationsReachingAnnotatedHelperGetsATwin) {
  Rewritten R = rewrite("helper_uncalled");
  const nlohmann::json &K = kernel(R, "plain_kernel");
  ASSERT_EQ(K["sites"].size(), 1u);
  EXPECT_EQ(K["sites"][0]["helper"], "third");
  EXPECT_EQ(K["groups"][0]["name"], "block");
  EXPECT_NE(R.Text.find("x[threadIdx.x] = third_cutrace_traced(__cutrace_block, x[threadIdx.x]);"),
            std::string::npos)
      << R.Text;
}

TEST(TracedRules, MemberTwinsAreMembersCalledThroughTheSameObject) {
  Rewritten R = rewrite("member_functions");
  for (const char *Call : {
           "acc.add_cutrace_traced(__cutrace_warp_0, in[threadIdx.x]);", // object
           "p->add_all_cutrace_traced<4>(__cutrace_warp_0, in);",        // pointer, member template
           "float m = p->mean_cutrace_traced(__cutrace_warp_0);",        // no arguments
           "half.cutrace_traced_call(__cutrace_warp_0, m)",              // operator()
           "half.cutrace_traced_call(__cutrace_warp_0, 1.0f)", // operator() called by name
           "Accumulator::round_up_cutrace_traced(__cutrace_warp_0, threadIdx.x)", // static
           "acc.reset_cutrace_traced(__cutrace_warp_0);",
           "acc.scale_by_cutrace_traced(__cutrace_warp_0, 2.0f);", // defined out of class
           "this->add_cutrace_traced(__cutrace_group, p[i]);",     // this-> in a member twin
           "    add_cutrace_traced(__cutrace_group, -total);",     // implicit this
       })
    EXPECT_NE(R.Text.find(Call), std::string::npos) << Call << "\n" << R.Text;
  // Qualifiers of the original stay on the twin: const, static, ref-qualifier and noexcept.
  for (const char *Declaration : {
           "template <class __CutraceGroup> __device__ float "
           "mean_cutrace_traced(__CutraceGroup &__cutrace_group) const {",
           "template <class __CutraceGroup> static __device__ int "
           "round_up_cutrace_traced(__CutraceGroup &__cutrace_group, int n) {",
           "template <class __CutraceGroup> __device__ void "
           "reset_cutrace_traced(__CutraceGroup &__cutrace_group) & noexcept {",
           "template <int N, class __CutraceGroup> __device__ void "
           "add_all_cutrace_traced(__CutraceGroup &__cutrace_group, const float *p) {",
       })
    EXPECT_NE(R.Text.find(Declaration), std::string::npos) << Declaration << "\n" << R.Text;
  // A lambda capturing by reference in a member records into the group the member received.
  EXPECT_NE(R.Text.find("__cutrace_group.instant(__CutraceGroup::sites::Accumulator__reset_31 + 1, "
                        "(steps));"),
            std::string::npos);
  const nlohmann::json &K = kernel(R, "members");
  std::set<std::string> Helpers;
  for (const nlohmann::json &S : K["sites"])
    Helpers.insert(S.value("helper", ""));
  EXPECT_EQ(Helpers, (std::set<std::string>{"Accumulator::add", "Accumulator::mean",
                                            "Accumulator::round_up", "Accumulator::add_all",
                                            "Accumulator::reset", "Accumulator::scale_by",
                                            "Scaler::operator()", "Scaler::apply"}));
}

TEST(TracedRules, OutOfClassMemberTwinDeclaredInClassDefinedAfterTheOriginal) {
  Rewritten R = rewrite("member_functions");
  size_t InClass = R.Text.find("  __device__ T apply(T v) const;\n");
  size_t TwinDeclared = R.Text.find("template <class __CutraceGroup> __device__ T "
                                    "apply_cutrace_traced(__CutraceGroup &__cutrace_group, T v) "
                                    "const;\n");
  size_t Defined = R.Text.find("template <class T> __device__ T Scaler<T>::apply(T v) const {");
  size_t TwinDefined =
      R.Text.find("template <class T> template <class __CutraceGroup> __device__ T "
                  "Scaler<T>::apply_cutrace_traced(__CutraceGroup &__cutrace_group, T v) const {");
  ASSERT_NE(TwinDeclared, std::string::npos) << R.Text;
  ASSERT_NE(TwinDefined, std::string::npos) << R.Text;
  EXPECT_LT(InClass, TwinDeclared);
  EXPECT_LT(TwinDeclared, Defined);
  EXPECT_LT(Defined, TwinDefined);
  // A member of a plain class defined out of class: its twin is a template of its own.
  EXPECT_NE(R.Text.find("template <class __CutraceGroup> __device__ void "
                        "Accumulator::scale_by_cutrace_traced(__CutraceGroup &__cutrace_group, "
                        "float f) {"),
            std::string::npos);
  // A member template of a class template: both template headers, the group's parameter last.
  Rewritten C = rewrite("cutlass_shaped_kernel");
  EXPECT_NE(C.Text.find("template <int Stages>\ntemplate <class SmemT, class __CutraceGroup>\n"
                        "CUTLASS_DEVICE void CollectiveMainloop<Stages>::load_cutrace_traced("
                        "__CutraceGroup &__cutrace_group, Params const &p, SmemT *smem, int k) "
                        "const {"),
            std::string::npos)
      << C.Text;
}

TEST(TracedRules, DependentCallsGoThroughADispatcherThatPrefersTheTwin) {
  Rewritten R = rewrite("cutlass_shaped_kernel");
  // device_kernel<Op> reaches annotations only through Op::operator(): it gets a twin whose call
  // compiles for every Op, with and without a twin, and hands it the kernel's groups.
  EXPECT_NE(R.Text.find("  cutrace_route_call(0, __cutrace_producer_0, op, params, smem);\n"),
            std::string::npos)
      << R.Text;
  EXPECT_NE(R.Text.find("cutrace_route_load(0, __cutrace_producer_g0, mainloop, params.mainloop, "
                        "smem, k);"),
            std::string::npos);
  EXPECT_NE(
      R.Text.find("acc = cutrace_route_mma(0, __cutrace_consumer_g1, mainloop, acc, smem, k);"),
      std::string::npos);
  // A static member of a dependent class: the class is the dispatcher's template argument.
  EXPECT_NE(R.Text.find("float acc = cutrace_route_static_stage_of<Mainloop>(0, "
                        "__cutrace_consumer_g1, 0);"),
            std::string::npos);
  // One dispatcher per member name, guarded, before the first line of the source.
  for (const char *Name : {"call", "load", "mma"}) {
    std::string Guard = std::string("#define CUTRACE_ROUTE_") + Name + "\n";
    EXPECT_EQ(count(R.Text, Guard), 1u) << Guard;
    EXPECT_LT(R.Text.find(Guard), R.Text.find("#line 1 ")) << Guard;
  }
  EXPECT_NE(R.Text.find("auto cutrace_route_load(int, G &g, O &&o, A &&...a) -> "
                        "decltype(static_cast<O &&>(o).load_cutrace_traced(g, static_cast<A &&>(a)"
                        "...))"),
            std::string::npos);
  EXPECT_NE(R.Text.find("decltype(auto) cutrace_route_load(long, G &, O &&o, A &&...a) {\n"
                        "  return static_cast<O &&>(o).load(static_cast<A &&>(a)...);"),
            std::string::npos);
  // Both instances launch through the twin; one map lists every site its instances reach.
  EXPECT_NE(R.Text.find("cutrace::launchPair(cutrace_map::device_kernel, device_kernel<Gemm>, "
                        "device_kernel_cutrace_traced<Gemm>,"),
            std::string::npos);
  EXPECT_NE(
      R.Text.find("cutrace::launchPair(cutrace_map::device_kernel, "
                  "device_kernel<PlainOperator>, device_kernel_cutrace_traced<PlainOperator>"),
      std::string::npos);
  const nlohmann::json &K = kernel(R, "device_kernel");
  std::set<std::string> Names;
  for (const nlohmann::json &S : K["sites"])
    Names.insert(S["name"]);
  EXPECT_EQ(Names, (std::set<std::string>{"producer_start", "load", "mma", "stage"}));
  // The groups operator() declares per warp group are rows of device_kernel (the producer's
  // markers, load()'s among them, record into the producer row; mma()'s into consumer slices).
  ASSERT_EQ(K["groups"].size(), 2u);
  EXPECT_EQ(K["groups"][0]["name"], "producer");
  EXPECT_EQ(K["groups"][1]["name"], "consumer");
}

/// The PTX of the entry whose mangled name contains Name (up to the next entry).
std::string ptxEntry(const std::string &Ptx, const std::string &Name) {
  size_t At = Ptx.find(".entry ");
  for (; At != std::string::npos; At = Ptx.find(".entry ", At + 1)) {
    size_t LineEnd = Ptx.find('(', At);
    if (Ptx.substr(At, LineEnd - At).find(Name) != std::string::npos)
      return Ptx.substr(At, Ptx.find(".entry ", At + 1) - At);
  }
  return "";
}

TEST(TracedRules, DispatcherCallsTheTwinOnlyWhereTheInstanceHasOne) {
  TracedRun T = runTraced("cutlass_shaped_kernel");
  ASSERT_EQ(T.Result.Status, 0) << T.Result.Output;
  fs::path Ptx = T.Dir / "out.ptx";
  CommandResult Nvcc =
      runCommand(std::string(CUTRACE_NVCC) +
                 " -std=c++17 -arch=sm_90a -ptx -I " + CUTRACE_RUNTIME_INCLUDE + " -I " +
                 quote(T.Dir) + " " + quote(T.traced()) + " -o " + quote(Ptx));
  ASSERT_EQ(Nvcc.Status, 0) << Nvcc.Output;
  std::string Text = readFile(Ptx);
  std::string Gemm = ptxEntry(Text, "device_kernel_cutrace_tracedI10GemmKernel");
  std::string Plain = ptxEntry(Text, "device_kernel_cutrace_tracedI13PlainOperator");
  ASSERT_FALSE(Gemm.empty() || Plain.empty()) << Text.substr(0, 4000);
  // Both twins hold the block group; only Gemm's reaches the four markers of operator(),
  // load(), mma() and stage_of() through the dispatchers, each reading the clock.
  EXPECT_GE(count(Gemm, "%clock64"), count(Plain, "%clock64") + 4);
  EXPECT_EQ(count(ptxEntry(Text, "_Z13device_kernelI10GemmKernel"), "%clock64"), 0u)
      << "the original records nothing";
}

TEST(TracedRules, HostDeviceTwinIsDeviceOnly) {
  Rewritten R = rewrite("cutlass_shaped_kernel");
  // CUTLASS_HOST_DEVICE is `__forceinline__ __host__ __device__`: the twin drops __host__, so
  // the host compilation has nothing to record; the original keeps its spelling.
  EXPECT_NE(R.Text.find("  CUTLASS_HOST_DEVICE static int stage_of(int k) {"), std::string::npos);
  EXPECT_NE(R.Text.find("template <class __CutraceGroup> __forceinline__ __device__ static int "
                        "stage_of_cutrace_traced(__CutraceGroup &__cutrace_group, int k) {"),
            std::string::npos)
      << R.Text;
}

std::vector<std::string> groupNames(const nlohmann::json &K) {
  std::vector<std::string> Names;
  for (const nlohmann::json &G : K["groups"])
    Names.push_back(G["name"]);
  return Names;
}

TEST(TracedRules, KernelWithoutAnnotationsGetsTheRowsItsCalleeDeclares) {
  // CUTLASS 3's shape: the __global__ body calls the function that decides the warp groups'
  // roles; the groups declared there are the kernel's rows, and nothing else is (no block row:
  // the kernel records only through its callee's groups).
  Rewritten R = rewrite("groups_in_callee");
  const nlohmann::json &K = kernel(R, "gemm");
  EXPECT_EQ(groupNames(K), (std::vector<std::string>{"producer", "consumer"}));
  EXPECT_EQ(K["groups"][1]["slice_threads"], 128);
  EXPECT_EQ(K["groups"][1]["first_thread"], 128);
  EXPECT_NE(R.Text.find("cutrace::launchPair(cutrace_map::gemm, gemm, gemm_cutrace_traced, 4, 384, "
                        "0, 0)(in, out, 8);"),
            std::string::npos)
      << R.Text;
  // The callee's markers record into the row of the role that calls them.
  EXPECT_NE(R.Text.find("load_cutrace_traced(__cutrace_producer_g0, smem, in, k);"),
            std::string::npos);
  EXPECT_NE(R.Text.find("acc += mma_cutrace_traced(__cutrace_consumer_g1, smem, k);"),
            std::string::npos);
  EXPECT_EQ(K["flows"].size(), 1u) << "a callee's TRACE_DAG is a flow of the kernel";
}

TEST(TracedRules, CalleeGroupIsARowOfEachKernelThatReachesItNumberedByThatKernel) {
  Rewritten R = rewrite("callee_groups_two_kernels");
  const nlohmann::json &First = kernel(R, "first"), &Second = kernel(R, "second");
  EXPECT_EQ(groupNames(First), (std::vector<std::string>{"block", "stage"}));
  EXPECT_EQ(groupNames(Second), (std::vector<std::string>{"stage"}));
  EXPECT_EQ(groupOfSite(First, "stage_read"), 1);
  EXPECT_EQ(groupOfSite(Second, "stage_read"), 0);
  // One twin; each kernel's group type tells it where the group is.
  EXPECT_EQ(count(R.Text, "stage_cutrace_traced(__CutraceGroup &__cutrace_group"), 1u);
  std::string Header = readFile(inputsDir() / "callee_groups_two_kernels.trace_map.h");
  EXPECT_NE(Header.find("struct first_sites {\n  static constexpr uint32_t stage_6 = 1;\n"
                        "  static constexpr uint32_t stage_6_group_0 = 1;"),
            std::string::npos)
      << Header;
  EXPECT_NE(Header.find("struct second_sites {\n  static constexpr uint32_t stage_6 = 0;\n"
                        "  static constexpr uint32_t stage_6_group_0 = 0;"),
            std::string::npos)
      << Header;
}

TEST(TracedRules, CalleeGroupIsConstructedAtTheKernelsEntryAndEveryCallContinuesIt) {
  // Called in a loop, a callee must continue its row and cursor: the kernel constructs the group
  // once, at its entry; the callee only binds a reference to it (also when not inlined).
  Rewritten R = rewrite("callee_group_in_loop");
  const nlohmann::json &K = kernel(R, "looped");
  EXPECT_EQ(groupNames(K), (std::vector<std::string>{"stepper", "drainers"}));
  EXPECT_EQ(count(R.Text, "cutrace::Roster<"), 1u) << R.Text;
  EXPECT_NE(R.Text.find("cutrace::Indices<0, 1>> __cutrace_roster(__cutrace_slots, "
                        "__cutrace_rows, {0, 1}, 32, cutrace::Slices{32, 0}); auto "
                        "&__cutrace_stepper_0 = __cutrace_roster.template group<0>(); auto "
                        "&__cutrace_drainers_1 = __cutrace_roster.template group<1>();\n"),
            std::string::npos)
      << R.Text;
  EXPECT_NE(R.Text.find("auto &__cutrace_stepper_g0 = __cutrace_group.template "
                        "group<__CutraceGroup::sites::step_6_group_0>();"),
            std::string::npos)
      << R.Text;
  EXPECT_NE(R.Text.find("auto &__cutrace_drainers_g0 = __cutrace_group.template "
                        "group<__CutraceGroup::sites::drain_12_group_0>();"),
            std::string::npos)
      << R.Text;
  EXPECT_EQ(groupOfSite(K, "step"), 0);
  EXPECT_EQ(groupOfSite(K, "drain"), 1);
}

TEST(TracedRules, GroupNameSharedByKernelAndCalleesIsOneRow) {
  Rewritten R = rewrite("callee_groups_share_names");
  const nlohmann::json &K = kernel(R, "shared_names");
  EXPECT_EQ(groupNames(K), (std::vector<std::string>{"producer", "consumer"}));
  EXPECT_EQ(groupOfSite(K, "setup"), 0);
  EXPECT_EQ(groupOfSite(K, "produce"), 0);
  EXPECT_EQ(groupOfSite(K, "even"), 1);
  EXPECT_EQ(groupOfSite(K, "odd"), 1);
  // consume_odd computes the consumer's lead: the row's writer is chosen at each declaration,
  // consume_even's constant one included.
  EXPECT_NE(R.Text.find("__cutrace_roster(__cutrace_slots, 2, {0, 1}, 0, "
                        "cutrace::LeadAtDeclaration{});"),
            std::string::npos)
      << R.Text;
  std::string Header = readFile(inputsDir() / "callee_groups_share_names.trace_map.h");
  EXPECT_NE(Header.find("static constexpr bool consume_even_12_lead_0 = true;"), std::string::npos)
      << Header;
  EXPECT_NE(Header.find("static constexpr bool produce_6_lead_0 = false;"), std::string::npos);
}

TEST(TracedRules, CalleeGroupThatNoKernelCallsWarnsAndGetsNoTwin) {
  Rewritten R = rewrite("callee_group_uncalled");
  EXPECT_NE(R.Diagnostics.find("callee_group_uncalled.cu:6:3: warning: 'orphan' is not called "
                               "from any kernel, so its annotations record nothing"),
            std::string::npos)
      << R.Diagnostics;
  EXPECT_EQ(R.Text.find("orphan_cutrace_traced"), std::string::npos) << R.Text;
  EXPECT_EQ(groupNames(kernel(R, "own_rows")), (std::vector<std::string>{"block"}));
}

TEST(TracedRules, TwoKernelsPerFileEachGetAMapOthersUntouched) {
  Rewritten R = rewrite("two_kernels");
  ASSERT_EQ(R.Map["kernels"].size(), 2u);
  EXPECT_EQ(R.Map["kernels"][0]["kernel"], "scale");
  EXPECT_EQ(R.Map["kernels"][1]["kernel"], "shift");
  EXPECT_NE(R.Text.find("__global__ void untouched(float *x) { x[0] = 0.0f; }"), std::string::npos);
  EXPECT_NE(R.Text.find("  untouched<<<1, 1>>>(x);\n"), std::string::npos);
  EXPECT_NE(R.Text.find("cutrace::launchPair(cutrace_map::shift, shift, shift_cutrace_traced, "
                        "(n + 255) / 256, 256, 0, stream)(x, 1.0f, n);"),
            std::string::npos)
      << R.Text;
}

TEST(TracedRules, OriginalKernelKeepsItsSignatureAndLosesItsAnnotationsAsStripDoes) {
  Rewritten R = rewrite("early_exits");
  CommandResult Stripped = runCommand("cd " + quote(inputsDir()) + " && " +
                                      std::string(CUTRACE_REWRITE_BIN) + " early_exits.cu");
  ASSERT_EQ(Stripped.Status, 0);
  size_t Begin = Stripped.Output.find("__global__ void early_exits(");
  size_t End = Stripped.Output.find("\n}\n", Begin);
  ASSERT_NE(End, std::string::npos);
  std::string Original = Stripped.Output.substr(Begin, End + 3 - Begin);
  // The traced file adds only #line directives where strip removed whole lines.
  std::istringstream Lines(R.Text);
  std::string Line, WithoutLineDirectives;
  while (std::getline(Lines, Line))
    if (Line.rfind("#line ", 0) != 0)
      WithoutLineDirectives += Line + "\n";
  EXPECT_NE(WithoutLineDirectives.find(Original), std::string::npos) << R.Text;
  EXPECT_NE(R.Text.find("__global__ void early_exits_cutrace_traced(const int *flags, float *out, "
                        "int n, cutrace::Slots* __cutrace_slots = nullptr) {"),
            std::string::npos);
}

TEST(TracedRules, TemplateKernelWithTwoInstantiationsSharesOneMap) {
  Rewritten R = rewrite("template_kernel");
  ASSERT_EQ(R.Map["kernels"].size(), 1u);
  EXPECT_EQ(R.Map["kernels"][0]["sites"].size(), 1u) << "one edit per spelled location";
  EXPECT_EQ(count(R.Text, "cutrace::Slots* __cutrace_slots"), 1u) << "one twin";
  EXPECT_EQ(count(R.Text, "cutrace::launchPair(cutrace_map::fill,"), 2u) << R.Text;
  EXPECT_EQ(count(R.Text, "registerTwin"), 0u) << "template twins register at their launches";
}

TEST(TracedRules, TwinDeclaredBesideEveryDeclarationWithTheDefaultOnTheFirst) {
  Rewritten R = rewrite("declared_then_defined");
  EXPECT_NE(R.Text.find("__global__ void later(int *out);\n#line 4 \"declared_then_defined.cu\"\n"
                        "__global__ void later_cutrace_traced(int *out, cutrace::Slots* "
                        "__cutrace_slots = nullptr);\n#line 5 \"declared_then_defined.cu\"\n"),
            std::string::npos)
      << R.Text;
  EXPECT_NE(R.Text.find("__global__ void later_cutrace_traced(int *out, cutrace::Slots* "
                        "__cutrace_slots) {"),
            std::string::npos);
  EXPECT_NE(R.Text.find("__global__ void noargs_cutrace_traced(cutrace::Slots* __cutrace_slots = "
                        "nullptr);"),
            std::string::npos);
  EXPECT_NE(R.Text.find("cutrace::launchPair(cutrace_map::noargs, noargs, noargs_cutrace_traced, "
                        "1, 1, 0, 0)();"),
            std::string::npos);
  EXPECT_NE(R.Text.find("cutrace::registerTwin((const void *)&later, (const void "
                        "*)&later_cutrace_traced, cutrace_map::later, 1);"),
            std::string::npos);
}

TEST(TracedRules, LaunchesInLambdasAndWithTwoToFourParametersAreRewritten) {
  Rewritten R = rewrite("launch_in_lambda");
  EXPECT_NE(R.Text.find("cutrace::launchPair(cutrace_map::work, work, work_cutrace_traced, blocks, "
                        "32, 0, 0)(x)"),
            std::string::npos)
      << R.Text;
  EXPECT_NE(R.Text.find("cutrace::launchPair(cutrace_map::work, work, work_cutrace_traced, 1, 32, "
                        "0, 0)(x)"),
            std::string::npos);
  EXPECT_NE(R.Text.find("cutrace::launchPair(cutrace_map::work, work, work_cutrace_traced, 1, 32, "
                        "128, s)(x)"),
            std::string::npos);
}

TEST(TracedRules, MacroBodiesAndLaunchApiCallsGoThroughTheTwinRegistry) {
  Rewritten R = rewrite("launch_in_lambda");
  EXPECT_NE(R.Text.find("#define LAUNCH_WORK(x) cutrace::via(work, 1, 32, 0, 0)(x)\n"),
            std::string::npos)
      << R.Text;
  EXPECT_NE(R.Text.find("  LAUNCH_WORK(x);\n"), std::string::npos) << "expansions stay as written";
  EXPECT_NE(R.Text.find("cutrace::launchKernel(reinterpret_cast<const void *>(&work), dim3(1), "
                        "dim3(32), args, 0, s);"),
            std::string::npos);
  EXPECT_EQ(R.Diagnostics.find("warning"), std::string::npos) << R.Diagnostics;
}

TEST(TracedRules, EveryLaunchFormIsRoutedAndLibraryLaunchersAreWarnedAbout) {
  Rewritten R = rewrite("launch_forms");
  for (const char *Routed :
       {"cutrace::launchKernelEx(&cfg, fill, x, 2.0f, n);",
        "cutrace::launchKernel((const void *)fill, dim3(1), dim3(128), fill_args, 0, s);",
        "cutrace::launchCooperativeKernel((const void *)axpy, dim3(1), dim3(128), axpy_args, 0, "
        "s);",
        "cutrace::launchKernelExC(&cfg, (const void *)axpy, axpy_args);",
        "cutrace::via(f, 1, 128, 0, s)(x, 3.0f, n);",
        "cutrace::via(kernel, (n + 127) / 128, 128, 0, 0)(x, 1.0f, n);",
        "cutrace::launchPair(cutrace_map::axpy, axpy, axpy_cutrace_traced, 1, 128, 0, 0)(a, x, y, "
        "1024);",
        "cutrace::launchPair(cutrace_map::stride, stride<32>, stride_cutrace_traced<32>, 1, 32, 0, "
        "0)(x, n);",
        "cudaFuncSetAttribute(fill, cudaFuncAttributeMaxDynamicSharedMemorySize, 0);",
        "partial_cutrace_traced<true><<<1, 32>>>(x, cutrace::launch(cutrace_map::partial, 1, 32, "
        "0));"})
    EXPECT_NE(R.Text.find(Routed), std::string::npos) << Routed << "\n" << R.Text;
  EXPECT_NE(R.Diagnostics.find("launch_forms.cu:69:18: warning: 'fill' is passed to "
                               "'library_launch' from a library header"),
            std::string::npos)
      << R.Diagnostics;
  EXPECT_NE(R.Diagnostics.find("cutrace::Recorder"), std::string::npos);
  EXPECT_EQ(count(R.Diagnostics, "warning:"), 1u) << "tables and pointers record: no warning";
}

TEST(TracedRules, TemplateInstancesTakenAsValuesRegisterTheirPairAndStayTheSamePointer) {
  Rewritten R = rewrite("value_uses");
  const std::string Scale2 =
      "cutrace::Registered<&scale<float, 2>, &scale_cutrace_traced<float, 2>, cutrace_map::scale>"
      "::value";
  for (const std::string &Routed : std::vector<std::string>{
           "ScaleKernel table[] = {&cutrace::Registered<&scale<float, 2>, "
           "&scale_cutrace_traced<float, "
           "2>, cutrace_map::scale>::value, cutrace::Registered<&scale<float, 3>, "
           "&scale_cutrace_traced<float, 3>, cutrace_map::scale>::value};",
           std::string("const void *kernel = (void const *)&cutrace::Registered<&device_kernel<Op>, "
                       "&device_kernel_cutrace_traced<Op>, cutrace_map::device_kernel>::value;"),
           std::string("cudaFuncSetAttribute(cutrace::Registered<&device_kernel<Op>, "
                       "&device_kernel_cutrace_traced<Op>, cutrace_map::device_kernel>::value, "),
           std::string(
               "template __global__ void scale<int, 4>(int *, int); "
               "static_assert(&cutrace::Registered<&scale<int, 4>, &scale_cutrace_traced<int, "
               "4>, cutrace_map::scale>::value == &scale<int, 4>, \"\");"),
           std::string("cutrace::via(Fixed<&cutrace::Registered<&scale<float, 5>, "
                       "&scale_cutrace_traced<float, 5>, cutrace_map::scale>::value>::kernel, "),
           "cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, " + Scale2 + ", 128, 0);",
           "cutrace::funcSetCacheConfig(" + Scale2 + ", cudaFuncCachePreferL1);",
           "cutrace::getKernel(&handle, " + Scale2 + ");",
           std::string(
               "cutrace::launchKernelExC(&cfg, (void const *)&cutrace::Registered<&scale<float, "
               "6>, &scale_cutrace_traced<float, 6>, cutrace_map::scale>::value, args);")})
    EXPECT_NE(R.Text.find(Routed), std::string::npos) << Routed << "\n" << R.Text;
  // The one use the rewrite cannot route: warned where it is, and named to the runtime, which
  // counts the launches of that kernel it sees and says them at exit.
  EXPECT_NE(R.Diagnostics.find("value_uses.cu:67:27: warning: 'device_kernel' is used as a value "
                               "here and its instance cannot be registered (its template "
                               "arguments are deduced, not written)"),
            std::string::npos)
      << R.Diagnostics;
  EXPECT_EQ(count(R.Diagnostics, "warning:"), 1u) << R.Diagnostics;
  EXPECT_NE(R.Text.find("cutrace::registerUnrouted(cutrace_map::device_kernel, \"its instance was "
                        "taken as a value at value_uses.cu:67 and never registered (its template "
                        "arguments are deduced, not written)\");"),
            std::string::npos)
      << R.Text;
}

TEST(TracedRules, AnnotationInABranchNoParseCompiledIsDroppedWithAWarning) {
  Rewritten R = rewrite("arch_branches");
  EXPECT_EQ(R.Text.find("TRACE_"), std::string::npos) << R.Text;
  EXPECT_NE(R.Diagnostics.find("arch_branches.cu:10:3: warning: TRACE_RANGE is in code that no "
                               "parsed configuration compiles"),
            std::string::npos)
      << R.Diagnostics;
  EXPECT_EQ(R.Map["kernels"][0]["sites"].size(), 1u);
}

TEST(TracedRules, TemplateKernelNeverInstantiatedGetsANoteOnTheChecksThatCouldNotRun) {
  Rewritten R = rewrite("uninstantiated_template");
  EXPECT_NE(R.Diagnostics.find("uninstantiated_template.cu:6:3: note: template kernel 'scale_by' "
                               "is not instantiated in this file"),
            std::string::npos)
      << R.Diagnostics;
  EXPECT_NE(R.Text.find("template <class T> __global__ void scale_by_cutrace_traced(T *x, T "
                        "factor, cutrace::Slots* __cutrace_slots = nullptr)"),
            std::string::npos)
      << R.Text;
}

/// An input copied into a fresh directory with one line replaced, rewritten there.
TracedRun runTracedVariant(const std::string &Stem, int Line, const std::string &NewLine) {
  TracedRun T;
  T.Stem = Stem + "_variant";
  T.Dir = fs::temp_directory_path() / ("cutrace_variant_" + Stem + "_" + std::to_string(getpid()));
  fs::remove_all(T.Dir);
  fs::create_directories(T.Dir);
  std::istringstream In(readFile(inputsDir() / (Stem + ".cu")));
  std::ofstream Out(T.Dir / (T.Stem + ".cu"), std::ios::binary);
  std::string Text;
  for (int N = 1; std::getline(In, Text); ++N)
    Out << (N == Line ? NewLine : Text) << "\n";
  Out.close();
  T.Result = runCommand("cd " + quote(T.Dir) + " && " + CUTRACE_REWRITE_BIN + " --traced " +
                        T.Stem + ".cu -o " + quote(T.traced()));
  return T;
}

TEST(TracedRules, NvccDiagnosticsInTracedBuildsPointAtTheSourceLine) {
  // Line 11 of early_exits.cu is inside the annotated kernel, after its annotations.
  // A warning nvcc gives and Clang's parse does not: the rewrite succeeds, nvcc reports it.
  TracedRun T = runTracedVariant("early_exits", 11, "  float acc = 0.0f; int planted_unused;");
  ASSERT_EQ(T.Result.Status, 0) << T.Result.Output;
  CommandResult Nvcc = runCommand(std::string(CUTRACE_NVCC) + " -std=c++17 -arch=sm_90 -I " +
                                  CUTRACE_RUNTIME_INCLUDE + " -I " + quote(T.Dir) + " -c " +
                                  quote(T.traced()) + " -o " + quote(T.Dir / "out.o"));
  EXPECT_EQ(Nvcc.Status, 0) << Nvcc.Output;
  EXPECT_NE(Nvcc.Output.find("early_exits_variant.cu(11): warning #177-D: variable "
                             "\"planted_unused\" was declared but never referenced"),
            std::string::npos)
      << Nvcc.Output;
  EXPECT_EQ(Nvcc.Output.find(".traced.cu("), std::string::npos) << Nvcc.Output;
  // The original kernel lost its annotation lines; #line keeps the lines after them numbered.
  for (const char *Drifted : {"early_exits_variant.cu(9)", "early_exits_variant.cu(10)"})
    EXPECT_EQ(Nvcc.Output.find(Drifted), std::string::npos) << Nvcc.Output;
}

TEST(TracedRules, LineinfoOfTracedBuildsNamesTheSourceFile) {
  TracedRun T = runTraced("early_exits");
  ASSERT_EQ(T.Result.Status, 0);
  fs::path Ptx = T.Dir / "out.ptx";
  CommandResult Nvcc =
      runCommand(std::string(CUTRACE_NVCC) + " -std=c++17 -arch=sm_90 -lineinfo -ptx -I " +
                 CUTRACE_RUNTIME_INCLUDE + " -I " + quote(T.Dir) + " " + quote(T.traced()) +
                 " -o " + quote(Ptx));
  ASSERT_EQ(Nvcc.Status, 0) << Nvcc.Output;
  std::string Text = readFile(Ptx);
  std::smatch M;
  std::regex File(R"re(\.file\s+[0-9]+\s+"([^"]*)")re");
  std::vector<std::string> Files;
  for (auto It = std::sregex_iterator(Text.begin(), Text.end(), File); It != std::sregex_iterator();
       ++It)
    Files.push_back((*It)[1].str());
  EXPECT_NE(std::find_if(Files.begin(), Files.end(),
                         [](const std::string &F) {
                           return F.find("early_exits.cu") != std::string::npos &&
                                  F.find(".traced.") == std::string::npos;
                         }),
            Files.end());
  for (const std::string &F : Files)
    EXPECT_EQ(F.find(".traced.cu"), std::string::npos) << F;
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

TEST(TracedRules, EveryOverloadGetsItsTwinItsOwnMapAndItsLaunches) {
  Rewritten R = rewrite("overloaded_kernels");
  std::vector<std::string> Names;
  for (const nlohmann::json &K : R.Map["kernels"])
    Names.push_back(K["kernel"]);
  EXPECT_EQ(Names,
            (std::vector<std::string>{"fill(int *)", "fill(float *)", "fill(float *, float)"}));
  EXPECT_EQ(count(R.Text, "__global__ void fill_cutrace_traced("), 3u) << R.Text;
  std::string Header = readFile(inputsDir() / "overloaded_kernels.trace_map.h");
  std::regex Symbol(R"(inline constexpr cutrace::KernelMap (fill_[0-9a-f]{8})\{)");
  std::set<std::string> Symbols;
  for (auto It = std::sregex_iterator(Header.begin(), Header.end(), Symbol);
       It != std::sregex_iterator(); ++It)
    Symbols.insert((*It)[1].str());
  EXPECT_EQ(Symbols.size(), 3u) << "one map per overload, each its own symbol\n" << Header;
  // Launches call the twin, so overload resolution picks the overload it picks for the original.
  EXPECT_EQ(count(R.Text, "fill_cutrace_traced<<<"), 3u) << R.Text;
  for (const std::string &S : Symbols)
    EXPECT_EQ(count(R.Text, "cutrace::launch(cutrace_map::" + S + ","), 1u) << S << "\n" << R.Text;
  // Overloads defined in another file: the registry path, cast to the overload the launch picks.
  EXPECT_NE(R.Text.find("cutrace::via(static_cast<void (*)(int *)>(external), 1, 32, 0, 0)(a);"),
            std::string::npos)
      << R.Text;
  EXPECT_NE(R.Text.find("cutrace::via(static_cast<void (*)(float *, float)>(external), 1, 32, 0, "
                        "s)(b, 1.0f);"),
            std::string::npos)
      << R.Text;
  EXPECT_NE(
      R.Text.find("cutrace::registerTwin((const void *)static_cast<void (*)(float *)>(&fill), "
                  "(const void *)static_cast<void (*)(float *, cutrace::Slots *)>("
                  "&fill_cutrace_traced), "),
      std::string::npos)
      << R.Text;
}

TEST(TracedRules, TwinStaysInTheScopeThatClosesOnItsOriginalsLine) {
  Rewritten R = rewrite("twins_in_one_line_scopes");
  for (const char *Scope : {"namespace a { __global__ void k(int *x) { x[0] = 1; }\n#line 4 "
                            "\"twins_in_one_line_scopes.cu\"\n__global__ void k_cutrace_traced(",
                            "extern \"C\" { __global__ void c_kernel(int *x) { x[0] = 5; }\n"
                            "#line 8 \"twins_in_one_line_scopes.cu\"\n__global__ void "
                            "c_kernel_cutrace_traced("})
    EXPECT_NE(R.Text.find(Scope), std::string::npos) << Scope << "\n" << R.Text;
  EXPECT_EQ(R.Map["kernels"].size(), 6u);
}

TEST(TracedRules, KernelWithAParameterPackTakesItsSlotsFirst) {
  Rewritten R = rewrite("variadic_kernel");
  EXPECT_NE(R.Text.find("template <class... Ts> __global__ void count_args_cutrace_traced("
                        "cutrace::Slots* __cutrace_slots, int *x, Ts... ts) {"),
            std::string::npos)
      << R.Text;
  EXPECT_NE(R.Text.find("count_args_cutrace_traced<int, char><<<1, 32>>>(cutrace::launch("
                        "cutrace_map::count_args, 1, 32, 0), x, 1, 'c');"),
            std::string::npos)
      << R.Text;
  EXPECT_NE(
      R.Text.find("only_pack_cutrace_traced<<<1, 32>>>(cutrace::launch(cutrace_map::only_pack, "
                  "1, 32, 0));"),
      std::string::npos)
      << R.Text;
}

TEST(TracedRules, LaunchOfAnUnannotatedExplicitSpecializationRunsItAsWritten) {
  Rewritten R = rewrite("specialization_of_an_annotated_template");
  EXPECT_NE(R.Text.find("  fill<<<1, 32>>>(b);\n  fill<float><<<1, 32>>>(b);\n"), std::string::npos)
      << R.Text;
  EXPECT_NE(
      R.Text.find("fill_cutrace_traced<<<1, 32>>>(a, cutrace::launch(cutrace_map::fill, 1, 32, "
                  "0));"),
      std::string::npos)
      << R.Text;
}

TEST(TracedRules, MacroBodyThatAlsoLaunchesOverloadsTemplatesOrOmittedDefaultsStaysAsWritten) {
  Rewritten R = rewrite("macro_launch_of_overloads_and_templates");
  for (const char *Body :
       {"#define LAUNCH_FILL(p) fill<<<1, 32>>>(p)\n", "#define LAUNCH_PUT(p) put<<<1, 32>>>(p)\n",
        "#define LAUNCH_DEFAULT(...) with_default<<<1, 32>>>(__VA_ARGS__)\n"})
    EXPECT_NE(R.Text.find(Body), std::string::npos) << Body << "\n" << R.Text;
  EXPECT_EQ(count(R.Diagnostics, "warning: launch of '"), 4u) << R.Diagnostics;
  EXPECT_EQ(count(R.Diagnostics, "(it is written inside a macro that the rewrite cannot edit)"),
            4u);
}

TEST(TracedRules, GroupSetupFollowsTheWholeOpeningBraceDigraph) {
  Rewritten R = rewrite("digraph_braces");
  EXPECT_NE(R.Text.find("digraphs_cutrace_traced(int *x, cutrace::Slots* __cutrace_slots = "
                        "nullptr) <% cutrace::Group<1024> __cutrace_warp0_0("),
            std::string::npos)
      << R.Text;
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
