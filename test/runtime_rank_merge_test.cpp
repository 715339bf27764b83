// Ranks of several hosts merged (docs/FORMAT.md, "Runs": "Processes of several hosts"): each
// process is placed by its own host's clock, as it reads, and the merged run states how far apart
// processes of different hosts may be. Made from the H200 run loop_1000_default.ctrace: the same
// launches as rank 1 on a second host whose clock reads a known offset ahead (rank_files.h).
#include "support/rank_files.h"
#include "support/scratch_dir.h"

#include <cutrace/export.h>
#include <cutrace/run_trace.h>

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include "support/tree_paths.h"


namespace {

using namespace cutrace;
using test_support::RankIdentity;

const std::string kLoop = std::string(CUTRACE_TEST_DATA) + "/h200/runs/loop_1000_default.ctrace";
constexpr int64_t kOffsetNs = 3'500'000; // node01's clock reads 3.5 ms ahead of node00's

// The fixture as process `who`, written to a file and decoded from it as trace-view does.
RunTrace rank_run(const RankIdentity &who, const std::string &dir) {
  Expected<Run> run = read_run_file(kLoop);
  EXPECT_TRUE(run) << run.error;
  if (!run)
    return {};
  const std::string path = dir + "/rank" + std::to_string(who.rank) + ".ctrace";
  const std::optional<std::string> err =
      test_support::write_run(test_support::as_rank(*run, who), path);
  EXPECT_FALSE(err) << *err;
  Expected<Run> back = read_run_file(path, RunReadOptions{0});
  EXPECT_TRUE(back) << back.error;
  Expected<RunTrace> trace = decode_run(*back, path);
  EXPECT_TRUE(trace) << trace.error;
  return trace ? std::move(*trace) : RunTrace{};
}

RankIdentity rank(int r, const std::string &host, int64_t offset, std::optional<uint64_t> error) {
  RankIdentity who;
  who.rank = r;
  who.local_rank = 0;
  who.host = host;
  who.pid = 100 + uint64_t(r);
  who.host_clock_offset_ns = offset;
  who.host_clock_error_ns = error;
  return who;
}

const RunProcess &process_of(const RunTrace &run, const RunLaunch &l) {
  return run.processes[run.devices[l.device].process];
}

TEST(RankMerge, EachHostIsPlacedByItsOwnClockAsItReads) {
  const std::string dir = test_support::scratch_dir("cutrace_rank_merge_").string();
  const RunTrace a = rank_run(rank(0, "node00", 0, 200'000), dir);
  const RunTrace b = rank_run(rank(1, "node01", kOffsetNs, 300'000), dir);
  ASSERT_TRUE(a.host_aligned && b.host_aligned);
  ASSERT_EQ(a.launches.size(), 24u);
  ASSERT_EQ(b.launches.size(), a.launches.size());
  const RunTrace merged = merge_runs({a, b});
  ASSERT_TRUE(merged.host_aligned);
  ASSERT_EQ(merged.launches.size(), 48u);
  // The same GPU work, seen through clocks 3.5 ms apart: rank 1's copy of each launch sits exactly
  // 3.5 ms after rank 0's, its host enqueue too. Nothing corrects it: the offset is the hosts'.
  std::vector<const RunLaunch *> of[2];
  for (const RunLaunch &l : merged.launches)
    of[process_of(merged, l).rank].push_back(&l);
  ASSERT_EQ(of[0].size(), 24u);
  ASSERT_EQ(of[1].size(), 24u);
  EXPECT_EQ(merged.origin_ns, a.origin_ns); // node00's clock reads earlier: its run starts the axis
  EXPECT_EQ(b.origin_ns, a.origin_ns + uint64_t(kOffsetNs));
  for (size_t i = 0; i < 24; ++i) {
    const RunLaunch &l0 = *of[0][i], &l1 = *of[1][i];
    EXPECT_EQ(l1.sequence, l0.sequence);
    EXPECT_EQ(l1.begin_ns - l0.begin_ns, double(kOffsetNs)) << i;
    EXPECT_EQ(l1.end_ns - l0.end_ns, double(kOffsetNs)) << i;
    ASSERT_TRUE(l0.enqueue_ns && l1.enqueue_ns) << i;
    EXPECT_EQ(*l1.enqueue_ns - *l0.enqueue_ns, double(kOffsetNs)) << i;
  }
}

TEST(RankMerge, TheBoundBetweenHostsIsTheirTwoClockErrorsAdded) {
  const std::string dir = test_support::scratch_dir("cutrace_rank_merge_").string();
  const RunTrace a = rank_run(rank(0, "node00", 0, 200'000), dir);
  const RunTrace a2 = rank_run(rank(2, "node00", 0, 150'000), dir);
  const RunTrace b = rank_run(rank(1, "node01", kOffsetNs, 300'000), dir);
  const RunTrace merged = merge_runs({a, a2, b});
  EXPECT_EQ(merged.hosts, 2u);
  // node00's clock is within 200 us of true time (the larger its processes state), node01's
  // within 300 us: their processes are at most 500 us from where true time would put them.
  ASSERT_TRUE(merged.host_clock_bound_ns);
  EXPECT_EQ(*merged.host_clock_bound_ns, 500'000u);
  EXPECT_TRUE(merged.problems.empty());
  const std::string summary = run_summary(merged);
  EXPECT_NE(summary.find("; time axis: the clocks of 2 hosts, processes of different hosts "
                         "within 500.000 \u00b5s of each other\n"),
            std::string::npos)
      << summary.substr(0, 200);
  EXPECT_NE(summary.find("process rank 1 (local 0): loop_traced (pid 101 on node01)"),
            std::string::npos);
  EXPECT_NE(run_summary_json(merged).find("\"host_clock_bound_ns\": 500000"), std::string::npos);
}

TEST(RankMerge, OneHostsProcessesShareItsClock) {
  const std::string dir = test_support::scratch_dir("cutrace_rank_merge_").string();
  const RunTrace merged = merge_runs({rank_run(rank(0, "node00", 0, std::nullopt), dir),
                                      rank_run(rank(1, "node00", 0, std::nullopt), dir)});
  EXPECT_EQ(merged.hosts, 1u);
  ASSERT_TRUE(merged.host_clock_bound_ns);
  EXPECT_EQ(*merged.host_clock_bound_ns, 0u);
  EXPECT_TRUE(merged.problems.empty());
  EXPECT_NE(run_summary(merged).find("; time axis: host clock\n"), std::string::npos);
}

TEST(RankMerge, AHostWhoseClockErrorIsNotKnownMakesTheBoundUnknownAndSaysSo) {
  const std::string dir = test_support::scratch_dir("cutrace_rank_merge_").string();
  const RunTrace merged = merge_runs({rank_run(rank(0, "node00", 0, 200'000), dir),
                                      rank_run(rank(1, "node01", kOffsetNs, std::nullopt), dir)});
  EXPECT_EQ(merged.hosts, 2u);
  EXPECT_FALSE(merged.host_clock_bound_ns);
  ASSERT_EQ(merged.problems.size(), 1u);
  EXPECT_EQ(merged.problems[0],
            "processes of 2 hosts are each placed by their host's clock, and the clock of node01 "
            "was not known to be synchronised: processes of different hosts may be shifted "
            "against each other by any amount");
  EXPECT_NE(run_summary(merged).find("time axis: the clocks of 2 hosts, not known to agree\n"),
            std::string::npos);
  EXPECT_NE(run_summary_json(merged).find("\"host_clock_bound_ns\": null"), std::string::npos);
}

TEST(RankMerge, ManyHostsWithoutAKnownClockErrorAreNamedFourAndCounted) {
  const std::string dir = test_support::scratch_dir("cutrace_rank_merge_").string();
  std::vector<RunTrace> runs;
  for (int r = 0; r < 6; ++r)
    runs.push_back(rank_run(rank(r, "node0" + std::to_string(r), 0, std::nullopt), dir));
  const RunTrace merged = merge_runs(runs);
  EXPECT_EQ(merged.hosts, 6u);
  ASSERT_EQ(merged.problems.size(), 1u);
  EXPECT_EQ(merged.problems[0],
            "processes of 6 hosts are each placed by their host's clock, and the clocks of node00, "
            "node01, node02, node03 and 2 more were not known to be synchronised: processes of "
            "different hosts may be shifted against each other by any amount");
}

} // namespace
