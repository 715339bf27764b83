// Whole runs recorded on an H200 (test/data/h200/runs/README.md): what the drain wrote decodes
// without a problem, the counts of the END section match the launch selection, and a reader
// with a buffer budget places every launch exactly where the full read does.
#include <cutrace/run_trace.h>

#include <gtest/gtest.h>

#include <set>
#include <string>
#include "support/tree_paths.h"


namespace {

using namespace cutrace;

const std::string kDir = std::string(CUTRACE_TEST_DATA) + "/h200/runs";

RunTrace decoded(const std::string &name, const RunReadOptions &options = {}) {
  Expected<Run> run = read_run_file(kDir + "/" + name, options);
  EXPECT_TRUE(run) << run.error;
  if (!run)
    return {};
  EXPECT_TRUE(run->problems.empty());
  Expected<RunTrace> trace = decode_run(*run, name);
  EXPECT_TRUE(trace) << trace.error;
  return trace ? std::move(*trace) : RunTrace{};
}

TEST(RunFixture, LoopDefaultSelectionRecordsFirstFourAndEvery250th) {
  const RunTrace run = decoded("loop_1000_default.ctrace");
  ASSERT_EQ(run.processes.size(), 1u);
  const RunProcess &p = run.processes[0];
  EXPECT_TRUE(p.complete);
  EXPECT_EQ(p.launches, "first:4,every:250");
  // 1001 launches per kernel (one warm-up iteration): indices 0-3, 250, 500, 750, 1000.
  ASSERT_EQ(p.kernel_launches.size(), 3u);
  for (const auto &[kernel, counts] : p.kernel_launches) {
    EXPECT_EQ(counts.first, 1001u) << kernel;
    EXPECT_EQ(counts.second, 8u) << kernel;
  }
  ASSERT_EQ(run.launches.size(), 24u);
  std::set<uint32_t> indices;
  for (const RunLaunch &l : run.launches) {
    indices.insert(l.launch_index);
    EXPECT_TRUE(l.trace.problems.empty()) << l.trace.problems.front();
    EXPECT_LT(l.begin_ns, l.end_ns);
  }
  EXPECT_EQ(indices, (std::set<uint32_t>{0, 1, 2, 3, 250, 500, 750, 1000}));
}

TEST(RunFixture, LaunchesOfOneStreamDoNotOverlap) {
  const RunTrace run = decoded("loop_1000_default.ctrace");
  for (size_t i = 1; i < run.launches.size(); ++i)
    if (run.launches[i].stream == run.launches[i - 1].stream)
      EXPECT_LE(run.launches[i - 1].end_ns, run.launches[i].begin_ns + 1000.0) << i;
}

TEST(RunFixture, HostEnqueuePrecedesTheStartWithinTheAlignmentBound) {
  for (const char *name :
       {"loop_1000_default.ctrace", "graph_capture.ctrace", "many_launches_4_threads.ctrace"}) {
    const RunTrace run = decoded(name);
    if (!run.host_aligned)
      continue; // recorded without a clock probe: nothing to check
    for (const RunLaunch &l : run.launches) {
      ASSERT_TRUE(l.enqueue_ns.has_value()) << name;
      if (l.in_graph)
        continue; // a graph launch's enqueue is its capture, not its replay
      const double bound = double(run.devices[l.device].alignment_error_ns);
      EXPECT_LE(*l.enqueue_ns, l.begin_ns + bound) << name << " launch " << l.sequence;
    }
  }
}

TEST(RunFixture, GraphLaunchesAreFlaggedAndDecode) {
  const RunTrace run = decoded("graph_capture.ctrace");
  int in_graph = 0;
  for (const RunLaunch &l : run.launches) {
    in_graph += l.in_graph;
    EXPECT_TRUE(l.trace.problems.empty());
    EXPECT_FALSE(l.trace.rows.empty());
  }
  EXPECT_EQ(run.launches.size(), 4u); // shift before, scale + shift captured, shift after
  EXPECT_EQ(in_graph, 2);
}

TEST(RunFixture, BufferBudgetKeepsEveryLaunchInPlace) {
  const RunTrace full = decoded("loop_1000_default.ctrace");
  RunReadOptions budget;
  budget.max_buffer_bytes = 1 << 20;
  const RunTrace part = decoded("loop_1000_default.ctrace", budget);
  ASSERT_EQ(full.launches.size(), part.launches.size());
  EXPECT_EQ(full.origin_ns, part.origin_ns);
  size_t without_detail = 0;
  for (size_t i = 0; i < full.launches.size(); ++i) {
    EXPECT_EQ(full.launches[i].sequence, part.launches[i].sequence);
    EXPECT_DOUBLE_EQ(full.launches[i].begin_ns, part.launches[i].begin_ns);
    EXPECT_DOUBLE_EQ(full.launches[i].end_ns, part.launches[i].end_ns) << i;
    without_detail += !part.launches[i].detail;
  }
  EXPECT_GT(without_detail, 0u);
  EXPECT_LT(without_detail, full.launches.size());
}

} // namespace

namespace {

using namespace cutrace;

// fuzz_ctrace: a damaged buffer whose slice ends lie past 2^64 ns made the launch's extent convert
// an out-of-range double (undefined behaviour); the extent saturates instead.
TEST(RunDecodeCorrupt, SliceEndsPastTheClockRangeGiveASaturatedExtent) {
  const std::string file = std::string(CUTRACE_TEST_DATA) +
                           "/../../fuzz/regressions/ctrace/run_extent_slice_end_past_2e64.ctrace";
  Expected<cutrace::Run> run = read_run_file(file);
  ASSERT_TRUE(run) << run.error;
  Expected<RunTrace> trace = decode_run(*run, file);
  ASSERT_TRUE(trace) << trace.error;
  for (const RunLaunch &l : trace->launches)
    EXPECT_LE(l.begin_ns, l.end_ns);
}

} // namespace
