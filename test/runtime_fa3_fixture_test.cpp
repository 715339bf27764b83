// FlashAttention-3's Hopper forward kernel built traced by its own setup.py (bench/fa3:
// annotate.py, prepare.sh, gpu_run.sh) and recorded on an H100: the files in test/data/h100/fa3/.
// The rows come from the kernel class's operator() (a "producer" row written by thread 0, a
// "consumer" row per consumer warpgroup), the ranges from the mainloop's load() (wait_k_slot,
// load_k, wait_v_slot, load_v per K/V tile) and from mma()'s steady-state step, a lambda
// (wait_k, qk, softmax, pv per K/V tile). Every launch of the kernel goes through CUTLASS's
// device_kernel and FlashAttention-3's enable_sm90 wrapper, which hold no annotation.
//   test_flash_attn_output.ctrace  FlashAttention-3's own test (pytest -k test_flash_attn_output),
//                                  the first 4 launches (the default selection)
//   sampled_1x4096x16.ctrace       run_attention.py at 1x4096x16x128 bf16 with the sample
//                                  placement: TRACE_SAMPLE(blockIdx.x % 8 == 0) before the load()
//                                  and mma() calls
#include <cutrace/run_trace.h>

#include "support/run_file_fixture.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include "support/tree_paths.h"


namespace cutrace {
namespace {

const std::string kDir = std::string(CUTRACE_TEST_DATA) + "/h100/fa3/";

// Slices by name, per row label, of one CTA.
using Names = std::map<std::string, int>;
using Counts = std::map<std::string, Names>;
int countOf(const Names &n, const std::string &name) {
  auto it = n.find(name);
  return it == n.end() ? 0 : it->second;
}
std::map<uint32_t, Counts> countsByCta(const Trace &t) {
  std::map<uint32_t, Counts> out;
  for (const Row &r : t.rows) {
    Names &c = out[r.cta][r.label];
    for (const Slice &s : r.slices)
      ++c[s.name];
  }
  return out;
}

TEST(Fa3Fixture, TheTestsLaunchesHaveAProducerRowAndARowPerConsumerWarpgroupInEveryCta) {
  const RunTrace run = test::decoded_run_file(kDir + "test_flash_attn_output.ctrace");
  ASSERT_EQ(run.launches.size(), 4u);
  EXPECT_TRUE(run.processes.at(0).complete);
  for (const RunLaunch &l : run.launches) {
    EXPECT_TRUE(l.trace.problems.empty()) << "launch " << l.sequence;
    // Persistent: one CTA per SM of the H100, 128 producer threads and two consumer warpgroups.
    EXPECT_EQ(l.grid[0], 132u);
    EXPECT_EQ(l.block[0], 384u);
    const std::map<uint32_t, Counts> ctas = countsByCta(l.trace);
    ASSERT_EQ(ctas.size(), 132u);
    int loading = 0;
    for (const auto &[cta, rows] : ctas) {
      ASSERT_EQ(rows.size(), 3u) << "CTA " << cta;
      EXPECT_TRUE(rows.count("producer") && rows.count("consumer[wg1]") && rows.count("consumer[wg2]"))
          << "CTA " << cta;
      const Names &p = rows.at("producer");
      if (p.empty())
        continue; // the test's small problems leave most CTAs without a tile
      ++loading;
      EXPECT_GT(countOf(p, "load_k"), 0) << "CTA " << cta;
      EXPECT_EQ(countOf(p, "load_k"), countOf(p, "wait_k_slot")) << "CTA " << cta;
    }
    EXPECT_GT(loading, 0) << "launch " << l.sequence;
    for (const Row &r : l.trace.rows)
      EXPECT_TRUE(r.started && r.closed && r.dropped == 0) << "CTA " << r.cta << " " << r.label;
  }
}

TEST(Fa3Fixture, SampledCtasRecordEveryKvStepOfBothWarpgroupsAndTheOthersNothing) {
  const RunTrace run = test::decoded_run_file(kDir + "sampled_1x4096x16.ctrace");
  ASSERT_EQ(run.launches.size(), 2u);
  for (const RunLaunch &l : run.launches) {
    EXPECT_TRUE(l.trace.problems.empty()) << "launch " << l.sequence;
    int sampled = 0;
    for (const auto &[cta, rows] : countsByCta(l.trace)) {
      const Names &p = rows.at("producer");
      if (cta % 8 != 0) {
        for (const auto &[label, names] : rows)
          EXPECT_TRUE(names.empty()) << "CTA " << cta << " " << label << " is not sampled";
        continue;
      }
      ++sampled;
      // 4096 keys in K/V tiles of 176: 24 loads of K and of V per tile; the steady-state step
      // runs for all but the first, in each consumer warpgroup.
      const int loads = countOf(p, "load_k");
      ASSERT_GT(loads, 0) << "CTA " << cta;
      EXPECT_EQ(loads % 24, 0) << "CTA " << cta;
      EXPECT_EQ(countOf(p, "load_v"), loads) << "CTA " << cta;
      for (const char *wg : {"consumer[wg1]", "consumer[wg2]"})
        for (const char *name : {"wait_k", "qk", "softmax", "pv"})
          EXPECT_EQ(countOf(rows.at(wg), name), 23 * (loads / 24)) << "CTA " << cta << " " << wg << " " << name;
    }
    EXPECT_EQ(sampled, 17) << "CTAs 0, 8, ..., 128 of 132";
  }
}

} // namespace
} // namespace cutrace
