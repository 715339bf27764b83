// trace-view on runs (docs/viewer.md, "trace-view"): several inputs merged one process each,
// --launch giving exactly the outputs of a single-launch file, its errors and exit statuses, and
// progress lines on long runs. The run files are written with encode_run (test/support).
#include <cutrace/ctrace.h>
#include <cutrace/run.h>

#include "support/run_builder.h"
#include "support/trace_view_process.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>
#include "support/tree_paths.h"


namespace cutrace {
namespace {

using nlohmann::json;
using test_support::step_map_json;
using test_support::step_record;

class TraceViewRuns : public ::testing::Test {
protected:
  void SetUp() override {
    char dir[] = "/tmp/trace_view_runs_XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }

  std::string path(const std::string &name) const { return dir_ + "/" + name; }

  // A run of rank `rank` (-1: none) on one aligned GPU whose clock is host - 1e12 ns: `ctas[i]`
  // CTAs for launch i, launches 10 us apart from globaltimer `start_ns`.
  std::string write_run(const std::string &name, int rank, std::vector<uint32_t> ctas,
                        uint64_t start_ns = 5'000'000'000) {
    cutrace::Run run;
    run.run_json =
        json{{"program", "train"}, {"pid", 100 + rank}, {"host", "node"}, {"rank", rank}}.dump();
    run.devices.push_back(json{
        {"index", 0},
        {"name", "GPU-A"},
        {"aligned", true},
        {"host_minus_gpu_ns", 1'000'000'000'000},
        {"alignment_error_ns",
         3000}}.dump());
    run.maps.push_back(step_map_json());
    for (uint32_t i = 0; i < ctas.size(); ++i)
      run.launches.push_back(step_record(0, 0, 0x10, i, ctas[i], start_ns + 10'000 * i,
                                         1'000'000'000'000 + start_ns + 10'000 * i - 2'000));
    run.end_json =
        json{{"kernels",
              {{{"kernel", "step"}, {"launches", ctas.size() + 1}, {"recorded", ctas.size()}}}}}
            .dump();
    EXPECT_FALSE(write_file_atomic(path(name), encode_run(run)));
    return path(name);
  }

  // The version 1 file of one step launch: the single-launch format.
  std::string write_single(const std::string &name, uint32_t ctas, uint64_t start_ns) {
    Ctrace c;
    c.map_json = step_map_json();
    c.grid[0] = ctas;
    c.block[0] = 64;
    c.buffer = test_support::step_buffer(ctas, start_ns);
    EXPECT_FALSE(write_file_atomic(path(name), encode_ctrace(c)));
    return path(name);
  }

  using Result = test_support::ProcessResult;
  Result view(const std::string &args) {
    return test_support::run_trace_view(CUTRACE_TRACE_VIEW, args, dir_);
  }
  static std::string read(const std::string &file) { return test_support::read_whole_file(file); }

  std::string dir_;
};

TEST_F(TraceViewRuns, SeveralInputsMergeIntoOneTimelineOneProcessEach) {
  const std::string a = write_run("rank0.ctrace", 0, {1, 2});
  const std::string b = write_run("rank1.ctrace", 1, {3, 1}, 5'000'005'000); // 5 us later
  const Result r =
      view("'" + a + "' '" + b + "' --json - --perfetto-json '" + path("p.json") + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  const json doc = json::parse(r.out);
  ASSERT_EQ(doc["processes"].size(), 2u);
  EXPECT_EQ(doc["processes"][0]["rank"], 0);
  EXPECT_EQ(doc["processes"][1]["rank"], 1);
  EXPECT_EQ(doc["processes"][1]["file"], b);
  ASSERT_EQ(doc["devices"].size(), 2u);
  EXPECT_EQ(doc["devices"][1]["process"], 1);
  EXPECT_TRUE(doc["host_aligned"]);
  // Host time orders the launches of both ranks: a0 at 0, b0 at 5 us, a1 at 10 us, b1 at 15 us.
  std::vector<std::pair<int, int>> order; // (process, sequence)
  std::vector<double> begins;
  for (const json &l : doc["launches"]) {
    order.emplace_back(l["process"], l["sequence"]);
    begins.push_back(l["begin_ns"]);
  }
  EXPECT_EQ(order, (std::vector<std::pair<int, int>>{{0, 0}, {1, 0}, {0, 1}, {1, 1}}));
  EXPECT_EQ(begins, (std::vector<double>{2000, 7000, 12000, 17000})); // enqueued 2 us before
  std::set<std::string> processes;
  const json perfetto = json::parse(read(path("p.json")));
  for (const json &e : perfetto["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "process_name")
      processes.insert(e["args"]["name"]);
  EXPECT_EQ(processes,
            (std::set<std::string>{"rank 0 \u00b7 GPU 0 (GPU-A)", "rank 1 \u00b7 GPU 0 (GPU-A)"}));
}

TEST_F(TraceViewRuns, LaunchGivesTheOutputsOfThatLaunchAsASingleLaunchFile) {
  const std::string run = write_run("run.ctrace", -1, {1, 2, 3});
  const std::string one = write_single("one.ctrace", 2, 5'000'010'000); // launch 1's buffer
  for (const char *output : {"--summary", "--json -", "--perfetto -", "--perfetto-json -"}) {
    const Result picked = view("'" + run + "' --launch 1 " + output);
    const Result single = view("'" + one + "' " + output);
    ASSERT_EQ(picked.status, 0) << picked.err;
    ASSERT_EQ(single.status, 0) << single.err;
    EXPECT_EQ(picked.out, single.out) << output;
    EXPECT_NE(picked.out.find("step"), std::string::npos);
  }
  const Result cta = view("'" + run + "' --launch=2 --cta 2 --summary");
  ASSERT_EQ(cta.status, 0) << cta.err;
  EXPECT_NE(cta.out.find("grid (3,1,1)"), std::string::npos) << cta.out;
}

TEST_F(TraceViewRuns, RunOfOneLaunchKeepsTheSingleLaunchOutputs) {
  const std::string run = write_run("run.ctrace", -1, {2});
  const std::string one = write_single("one.ctrace", 2, 5'000'000'000);
  const Result a = view("'" + run + "'"), b = view("'" + one + "'");
  ASSERT_EQ(a.status, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(a.out.rfind("kernel step", 0), 0u) << a.out;
}

TEST_F(TraceViewRuns, LaunchNotInTheRunIsAnInputErrorSayingWhatTheRunHolds) {
  const std::string run = write_run("run.ctrace", -1, {1, 2, 3});
  const Result r = view("'" + run + "' --launch 7 --html '" + path("x.html") + "'");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "trace-view: error: " + run +
                       ": no launch 7: the run holds 3 launches, sequence numbers 0 to 2\n");
  EXPECT_FALSE(std::ifstream(path("x.html")).good());
}

TEST_F(TraceViewRuns, LaunchOrCtaWithSeveralInputsIsBadUsage) {
  const std::string a = write_run("a.ctrace", 0, {1}), b = write_run("b.ctrace", 1, {1});
  Result r = view("'" + a + "' '" + b + "' --launch 0");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "trace-view: error: --launch selects from one input, got 2 inputs (see --help)\n");
  r = view("'" + a + "' '" + b + "' --cta 0");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "trace-view: error: --cta selects from one input, got 2 inputs (see --help)\n");
}

TEST_F(TraceViewRuns, CtaOfAWholeRunAsksForALaunch) {
  const std::string run = write_run("run.ctrace", -1, {1, 2});
  const Result r = view("'" + run + "' --cta 0");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "trace-view: error: --cta shows one launch: choose it with --launch N (" + run +
                       " holds 2 launches, sequence numbers 0 to 1) (see --help)\n");
}

TEST_F(TraceViewRuns, UnreadableSecondInputIsAnInputError) {
  const std::string a = write_run("a.ctrace", 0, {1});
  const Result r = view("'" + a + "' '" + path("missing.ctrace") + "' --summary");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "trace-view: error: cannot read '" + path("missing.ctrace") +
                       "': No such file or directory\n");
}

TEST_F(TraceViewRuns, SummaryOfARunIsTheDefaultOutput) {
  const Result r = view("'" + write_run("run.ctrace", 2, {1, 2, 1}) + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("run: 3 launches, 1 process, 1 GPU", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("GPU 0 (GPU-A): host clock aligned \u00b13.000 \u00b5s"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.err, "");
}

// --summary and --json read launch extents only (no records in memory); what they say is what
// they say when every record is read (--perfetto-json reads them all).
TEST_F(TraceViewRuns, SummariesReadWithoutRecordsSayWhatTheFullReadSays) {
  const std::string run = write_run("run.ctrace", 2, {1, 2, 3, 1});
  const Result lean = view("'" + run + "' --summary --json '" + path("lean.json") + "'");
  const Result full = view("'" + run + "' --summary --json '" + path("full.json") +
                           "' --perfetto-json '" + path("p.json") + "'");
  ASSERT_EQ(lean.status, 0) << lean.err;
  ASSERT_EQ(full.status, 0) << full.err;
  EXPECT_EQ(lean.out, full.out);
  EXPECT_EQ(read(path("lean.json")), read(path("full.json")));
}

TEST_F(TraceViewRuns, ProgressIsReportedPastAHundredLaunches) {
  const std::string big = write_run("big.ctrace", -1, std::vector<uint32_t>(150, 1));
  Result r = view("'" + big + "' --summary");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "trace-view: " + big + ": decoded 100/150 launches\ntrace-view: " + big +
                       ": decoded 150/150 launches\n");
  r = view("'" + write_run("small.ctrace", -1, std::vector<uint32_t>(100, 1)) + "' --summary");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

// A run of 101 launches whose last launch names a map that does not parse: every command still
// counts it (decoded 101/101) and the summary holds all 101, the last without detail.
TEST_F(TraceViewRuns, NoLaunchIsLeftOutOfTheCountOrTheRun) {
  const std::string good = write_run("good.ctrace", -1, std::vector<uint32_t>(101, 1));
  Expected<cutrace::Run> run = read_run_file(good);
  ASSERT_TRUE(run) << run.error;
  run->maps.push_back("{\"kernel\": ");
  run->launches.back().map = 1;
  const std::string bad = path("bad_map.ctrace");
  ASSERT_FALSE(write_file_atomic(bad, encode_run(*run)));
  for (const std::string &output : std::vector<std::string>{
           "--summary", "--json '" + path("r.json") + "'", "--html '" + path("r.html") + "'"}) {
    const Result r = view("'" + bad + "' " + output);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("decoded 101/101 launches"), std::string::npos) << output << r.err;
    EXPECT_NE(r.err.find("1 of 101 launches have decode problems"), std::string::npos) << r.err;
    if (output == "--summary")
      EXPECT_EQ(r.out.rfind("run: 101 launches", 0), 0u) << r.out.substr(0, 300);
  }
}

TEST_F(TraceViewRuns, HtmlSizeBoundMustBeAPositiveNumberOfMegabytes) {
  const std::string run = write_run("run.ctrace", -1, {1, 2});
  for (const char *bad : {"0", "-1", "x", "2000000"}) {
    const Result r =
        view("'" + run + "' --html-max-mb " + bad + " --html '" + path("r.html") + "'");
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_NE(r.err.find("--html-max-mb wants a size in MB"), std::string::npos) << r.err;
  }
  const Result ok = view("'" + run + "' --html-max-mb 1 --html '" + path("r.html") + "'");
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_TRUE(std::ifstream(path("r.html")).good());
}

} // namespace
} // namespace cutrace
