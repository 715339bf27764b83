// A program traced with `--auto` and no edit, recorded on an H200 (bench/auto/h200_auto.sh):
// llm.c's dev/cuda permute (commit f1e2ace, kernel 1), whose permute_kernel runs 2520 CTAs of 256
// threads with no loop, so each CTA's row holds one range, its life (docs/auto.md). The file is
// test/data/h200/auto/llmc_permute1_auto.ctrace.
#include <cutrace/analysis.h>
#include <cutrace/run_trace.h>

#include "support/run_file_fixture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>
#include "support/tree_paths.h"


namespace cutrace {
namespace {

const std::string kFile = std::string(CUTRACE_TEST_DATA) + "/h200/auto/llmc_permute1_auto.ctrace";

RunTrace decoded() { return test::decoded_run_file(kFile); }

TEST(AutoFixture, EveryCtaHasOneRowHoldingItsLife) {
  const RunTrace run = decoded();
  ASSERT_EQ(run.launches.size(), 1u);
  const RunLaunch &l = run.launches[0];
  EXPECT_TRUE(run.processes[0].complete);
  EXPECT_TRUE(l.trace.problems.empty());
  const uint32_t ctas = l.grid[0] * l.grid[1] * l.grid[2];
  ASSERT_EQ(ctas, 2520u);
  ASSERT_EQ(l.trace.rows.size(), ctas);
  std::vector<int> seen(ctas, 0);
  for (const Row &r : l.trace.rows) {
    ASSERT_LT(r.cta, ctas);
    ++seen[r.cta];
    EXPECT_EQ(r.label, "cta") << "CTA " << r.cta;
    EXPECT_TRUE(r.started && r.closed) << "CTA " << r.cta;
    ASSERT_EQ(r.slices.size(), 1u) << "CTA " << r.cta;
    const Slice &life = r.slices[0];
    EXPECT_EQ(life.name, "permute_kernel");
    EXPECT_FALSE(life.incomplete);
    EXPECT_GT(life.end_ns, life.begin_ns) << "CTA " << r.cta;
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), int(ctas)) << "one row per CTA";
}

// 256 threads a CTA, 2048 a Hopper SM: no SM ever runs more than 8 of them at once; 2520 CTAs
// are 2.39 full waves of 132 x 8. The lives show what a count of CTAs cannot: the SMs did not
// get equal shares (16 to 25 CTAs each in this recording), so the busiest needed 4 waves.
TEST(AutoFixture, LivesShowTheOccupancyLimitAndUnequalShares) {
  const RunTrace run = decoded();
  ASSERT_EQ(run.launches.size(), 1u);
  const TailReport tail = analyze_tail(run.launches[0].trace);
  EXPECT_EQ(tail.ctas.size(), 2520u);
  ASSERT_EQ(tail.sms.size(), 132u);
  EXPECT_EQ(tail.max_concurrent_per_sm, 8u);
  EXPECT_NEAR(tail.full_waves, 2520.0 / (132 * 8), 1e-9);
  uint32_t total = 0, fewest = UINT32_MAX, most = 0;
  for (const SmSpan &sm : tail.sms) {
    EXPECT_LE(sm.max_concurrent, 8u) << "SM " << sm.smid;
    total += sm.ctas;
    fewest = std::min(fewest, sm.ctas);
    most = std::max(most, sm.ctas);
  }
  EXPECT_EQ(total, 2520u);
  EXPECT_EQ(fewest, 16u);
  EXPECT_EQ(most, 25u);
  EXPECT_EQ(tail.waves, 4u) << "ceil(25 / 8) on the busiest SM";
}

} // namespace
} // namespace cutrace
