// Runs recorded on an H200 with 8-byte records (test/data/h200/records8/README.md): the device's
// buffers of version 3 decode without a problem into the slices the programs recorded.
#include <cutrace/run_trace.h>

#include <gtest/gtest.h>

#include <map>
#include <string>
#include "support/tree_paths.h"


namespace {

using namespace cutrace;

const std::string kDir = std::string(CUTRACE_TEST_DATA) + "/h200/records8";

// The one launch of a run file, and the count of slices and instants by name over its rows.
struct Decoded {
  RunTrace run;
  std::map<std::string, uint32_t> counts;
};

Decoded decoded(const std::string &name) {
  Decoded d;
  Expected<Run> run = read_run_file(kDir + "/" + name);
  EXPECT_TRUE(run) << run.error;
  if (!run)
    return d;
  EXPECT_TRUE(run->problems.empty());
  Expected<RunTrace> trace = decode_run(*run, name);
  EXPECT_TRUE(trace) << trace.error;
  if (!trace)
    return d;
  d.run = std::move(*trace);
  for (const RunLaunch &l : d.run.launches)
    for (const Row &row : l.trace.rows) {
      for (const Slice &s : row.slices)
        ++d.counts[s.name];
      for (const Instant &i : row.instants)
        ++d.counts[i.name];
    }
  return d;
}

TEST(Records8Fixture, HopperPipelineDecodesEveryRangeAndFlowOfItsVersion3Buffer) {
  const Decoded d = decoded("hopper_run.ctrace");
  ASSERT_EQ(d.run.launches.size(), 1u);
  const Trace &t = d.run.launches[0].trace;
  EXPECT_TRUE(t.problems.empty()) << t.problems.front();
  EXPECT_EQ(t.header.version, kRecordFormatVersion);
  EXPECT_EQ(t.header.layout, BufferLayout::compact);
  EXPECT_EQ(t.rows.size(), 6u);
  EXPECT_EQ(d.counts,
            (std::map<std::string, uint32_t>{
                {"load", 64}, {"wait_empty", 56}, {"wait", 64}, {"compute", 64}, {"epilogue", 8}}));
  EXPECT_EQ(t.flows.size(), 64u);
  for (const Row &row : t.rows) {
    EXPECT_TRUE(row.closed);
    EXPECT_EQ(row.dropped, 0u);
    EXPECT_EQ(row.ghz_source, RateSource::measured);
    for (size_t i = 0; i < row.slices.size(); ++i) {
      EXPECT_FALSE(row.slices[i].incomplete);
      EXPECT_LE(row.slices[i].begin_cycles, row.slices[i].end_cycles);
      if (i > 0) // slices in begin order, though each range was stored where it ended
        EXPECT_LE(row.slices[i - 1].begin_cycles, row.slices[i].begin_cycles);
    }
  }
}

TEST(Records8Fixture, HopperStagesCarryTheirPayloadsIntoTheFlows) {
  const Decoded d = decoded("hopper_run.ctrace");
  ASSERT_EQ(d.run.launches.size(), 1u);
  const Trace &t = d.run.launches[0].trace;
  // Every flow joins a load to the compute of the same stage (the payload both carry).
  for (const Flow &f : t.flows) {
    const Slice &src = t.rows[f.src.row].slices[f.src.slice];
    const Slice &dst = t.rows[f.dst.row].slices[f.dst.slice];
    EXPECT_EQ(src.name, "load");
    EXPECT_EQ(dst.name, "compute");
    EXPECT_EQ(src.payload, dst.payload);
  }
}

TEST(Records8Fixture, WarpSpecializedDecodesEveryRangeOfItsVersion3Buffer) {
  const Decoded d = decoded("ws_gemm_run.ctrace");
  ASSERT_EQ(d.run.launches.size(), 1u);
  const Trace &t = d.run.launches[0].trace;
  EXPECT_TRUE(t.problems.empty()) << t.problems.front();
  EXPECT_EQ(t.header.version, kRecordFormatVersion);
  EXPECT_EQ(t.rows.size(), 24u);
  EXPECT_EQ(d.counts, (std::map<std::string, uint32_t>{{"produce", 192},
                                                       {"consume", 192},
                                                       {"stage_ready", 192},
                                                       {"stage_free", 192},
                                                       {"epilogue", 12}}));
  EXPECT_EQ(t.flows.size(), 192u);
}

} // namespace
