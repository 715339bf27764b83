// `trace-view diff` on the committed H200 fixtures (docs/analysis.md, "Comparing two traces"):
// exit status, the table's shape and order, --json, the noise options, pooled and chosen launches
// of a run file, and the errors (two kernels, a run of several kernels, a missing launch).
#include "support/trace_view_process.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>
#include "support/tree_paths.h"


namespace {

using nlohmann::json;

std::string data(const std::string &name) {
  return std::string("'") + CUTRACE_TEST_DATA + "/h200/" + name + "'";
}
const std::string kRun1 = data("diff/ws_gemm_run1.ctrace"),
                  kRun2 = data("diff/ws_gemm_run2.ctrace"),
                  kFloat4 = data("diff/ws_gemm_float4.ctrace"),
                  kRepeat = data("diff/ws_gemm_repeat_run.ctrace"),
                  kLoop = data("runs/loop_1000_default.ctrace");

class TraceViewDiff : public ::testing::Test {
protected:
  void SetUp() override {
    char dir[] = "/tmp/trace_view_diff_XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  std::string path(const std::string &name) const { return dir_ + "/" + name; }

  using Result = cutrace::test_support::ProcessResult;
  Result diff(const std::string &args) {
    return cutrace::test_support::run_trace_view(CUTRACE_TRACE_VIEW, "diff " + args, dir_);
  }
  static std::string read(const std::string &file) {
    return cutrace::test_support::read_whole_file(file);
  }
  // The table's data lines (after the header line), first column trimmed.
  static std::vector<std::string> names(const std::string &table) {
    std::istringstream in(table);
    std::string line;
    std::vector<std::string> out;
    bool body = false;
    while (std::getline(in, line)) {
      if (line.rfind("  name ", 0) == 0) {
        body = true;
        continue;
      }
      if (body && line.rfind("  (", 0) != 0 && !line.empty())
        out.push_back(line.substr(2, line.find("  ", 2) - 2));
    }
    return out;
  }
  std::string dir_;
};

TEST_F(TraceViewDiff, ChangedBuildPrintsTheThreeHandoffRowsFirstAndNotAsNoise) {
  const Result r = diff(kRun1 + " " + kFloat4 + " --noise-from " + kRun1 + " " + kRun2);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.rfind("diff of ws_gemm\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("3.0 x the change between ws_gemm_run1.ctrace vs ws_gemm_run2.ctrace"),
            std::string::npos)
      << r.out;
  const std::vector<std::string> rows = names(r.out);
  ASSERT_EQ(rows.size(), 7u) << r.out;
  // produce and consume lose about the same time per CTA (17.7 us): a near tie, either order.
  EXPECT_TRUE((rows[0] == "produce" && rows[1] == "consume") ||
              (rows[0] == "consume" && rows[1] == "produce"))
      << r.out;
  EXPECT_EQ(rows[2], "produce -> consume (wait)");
  std::istringstream lines(r.out.substr(r.out.find("\n  name ") + 1));
  std::string line;
  int noise = 0;
  std::getline(lines, line); // the header, whose last column is "noise"
  while (std::getline(lines, line))
    noise += line.size() > 5 && line.compare(line.size() - 5, 5, "noise") == 0;
  EXPECT_EQ(noise, 4) << r.out; // epilogue, the gap, the two instants
}

TEST_F(TraceViewDiff, JsonRowsAreSortedByImpactWithInstantsLast) {
  const Result r = diff(kRun1 + " " + kFloat4 + " --json '" + path("d.json") + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("wrote"), std::string::npos); // and the table still goes to stdout
  EXPECT_EQ(names(r.out).size(), 7u);
  const json j = json::parse(read(path("d.json")));
  EXPECT_EQ(j["kernel_a"], "ws_gemm");
  EXPECT_EQ(j["a"]["ctas"], 12);
  const json &rows = j["rows"];
  ASSERT_EQ(rows.size(), 7u);
  bool instants = false;
  for (size_t i = 0; i < rows.size(); ++i) {
    instants = instants || rows[i]["kind"] == "instant";
    EXPECT_EQ(rows[i]["kind"] == "instant", instants) << rows[i]; // instants only at the end
    if (i && !instants)
      EXPECT_GE(rows[i - 1]["impact_ns"].get<double>(), rows[i]["impact_ns"].get<double>());
  }
  EXPECT_TRUE(rows[0]["name"] == "produce" || rows[0]["name"] == "consume") << rows[0]; // near tie
  EXPECT_LT(rows[0]["relative_change"].get<double>(), -0.4);
  EXPECT_EQ(rows[0]["within_noise"], false);
}

TEST_F(TraceViewDiff, JsonToStdoutReplacesTheTable) {
  const Result r = diff(kRun1 + " " + kRun2 + " --json -");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  for (const json &row : j["rows"])
    EXPECT_EQ(row["within_noise"], true) << row; // two runs of one build
}

TEST_F(TraceViewDiff, TopLimitsTheTableAndSaysWhatItLeftOut) {
  const Result r = diff(kRun1 + " " + kFloat4 + " --top 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(names(r.out).size(), 2u);
  EXPECT_NE(r.out.find("(5 more rows: --top 0 shows all)"), std::string::npos) << r.out;
}

TEST_F(TraceViewDiff, RunFileLaunchesArePooledOrChosen) {
  Result r = diff(kRepeat + " " + kRun1);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("A: ws_gemm_repeat_run.ctrace: 4 launches pooled, 48 CTAs"),
            std::string::npos)
      << r.out;
  r = diff(kRepeat + " " + kRun1 + " --launch-a 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("A: ws_gemm_repeat_run.ctrace launch 2: 1 launch, 12 CTAs"),
            std::string::npos)
      << r.out;
  r = diff(kRepeat + " " + kRun1 + " --launch-a 9");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no launch 9"), std::string::npos) << r.err;
}

TEST_F(TraceViewDiff, RunOfSeveralKernelsNeedsKernelOrLaunch) {
  Result r = diff(kLoop + " " + kLoop);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("holds launches of layernorm, matmul, softmax: choose one with --kernel"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");
  r = diff(kLoop + " " + kLoop + " --launch-a 3 --launch-b 6");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("diff of matmul\n", 0), 0u) << r.out;
  r = diff(kLoop + " " + kLoop + " --kernel softmax");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("8 launches pooled, 4096 CTAs"), std::string::npos) << r.out;
}

TEST_F(TraceViewDiff, DifferentKernelsAreAnErrorUnlessForced) {
  const std::string other = data("block_sum.ctrace");
  Result r = diff(kRun1 + " " + other);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "trace-view: error: A is kernel ws_gemm, B is kernel block_sum: diff compares "
                   "two traces of one kernel (--force compares them anyway)\n");
  EXPECT_EQ(r.out, "");
  r = diff(kRun1 + " " + other + " --force");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.err.find("warning: comparing two kernels: ws_gemm and block_sum"), std::string::npos);
  EXPECT_NE(r.out.find("warning: different kernels: ws_gemm and block_sum"), std::string::npos);
}

TEST_F(TraceViewDiff, BadUsageExitsTwoAndWritesNothing) {
  for (const std::string &args :
       {kRun1, kRun1 + " " + kRun2 + " " + kFloat4, kRun1 + " " + kRun2 + " --noise-from " + kRun1,
        kRun1 + " " + kRun2 + " --top x", kRun1 + " " + kRun2 + " --bogus",
        kRun1 + " " + kRun2 + " --noise-factor -1"}) {
    const Result r = diff(args + " --json '" + path("never.json") + "'");
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_NE(r.err.find("trace-view: error:"), std::string::npos) << args;
    EXPECT_FALSE(std::ifstream(path("never.json")).good()) << args;
  }
  const Result missing = diff(kRun1 + " '" + path("missing.ctrace") + "'");
  EXPECT_EQ(missing.status, 2);
}

TEST_F(TraceViewDiff, HelpDescribesImpactAndNoise) {
  const Result r = diff("--help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("impact = |change of total time per CTA|"), std::string::npos);
  EXPECT_NE(r.out.find("--noise-from C D"), std::string::npos);
}

} // namespace
