// TRACE_SAMPLE runs recorded on an H200 (test/data/h200/sampled/README.md): examples/hopper_pipeline
// with each role's k-loop sampled every 8th tile of the CTA, beside the same launch recording
// every tile, and CUTLASS example 54 with its tiles sampled. A sampled run holds the ranges of
// exactly the selected tiles (and the hopper example's epilogue of every tile); nothing else is
// lost.
#include <cutrace/run_trace.h>

#include "support/run_file_fixture.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include "support/tree_paths.h"


namespace {

using namespace cutrace;

const std::string kDir = std::string(CUTRACE_TEST_DATA) + "/h200/sampled";
constexpr int kKTiles = 8; // --k 512 in k-tiles of 64

struct Decoded {
  RunTrace run;
  std::map<std::string, uint32_t> counts;
  std::map<std::string, std::set<int>> tiles; // per k-loop range name: the CTA tiles it covers
};

Decoded decoded(const std::string &name) {
  Decoded d;
  d.run = test::decoded_run_file(kDir + "/" + name);
  for (const RunLaunch &l : d.run.launches)
    for (const Row &row : l.trace.rows)
      for (const Slice &s : row.slices) {
        ++d.counts[s.name];
        EXPECT_FALSE(s.incomplete) << s.name;
        if (s.name != "epilogue") // the k-loop ranges carry the CTA's stage: tile * k_tiles + kt
          d.tiles[s.name].insert(s.payload / kKTiles);
      }
  return d;
}

TEST(SampledFixture, KLoopRangesOfEveryEighthTileOnlyAndEveryTilesEpilogue) {
  const Decoded all = decoded("hopper_all_run.ctrace"), sampled = decoded("hopper_t8_run.ctrace");
  ASSERT_EQ(all.run.launches.size(), 1u);
  ASSERT_EQ(sampled.run.launches.size(), 1u);
  for (const Decoded *d : {&all, &sampled}) {
    const Trace &t = d->run.launches[0].trace;
    EXPECT_TRUE(t.problems.empty()) << t.problems.front();
    EXPECT_EQ(t.rows.size(), 12u); // 4 CTAs: a producer and two consumer warpgroups each
  }
  // 128 tiles over 4 CTAs: 32 per CTA, 8 k-tiles each.
  EXPECT_EQ(all.counts, (std::map<std::string, uint32_t>{{"load", 1024},
                                                         {"wait_empty", 1008},
                                                         {"wait", 1024},
                                                         {"compute", 1024},
                                                         {"epilogue", 128}}));
  // Tiles 0, 8, 16, 24 of each CTA: 16 tiles, 128 k-tiles; the producer's first stages of tile 0
  // wait for no slot (the ring of 4 is free), so 112 waits.
  EXPECT_EQ(sampled.counts, (std::map<std::string, uint32_t>{{"load", 128},
                                                             {"wait_empty", 112},
                                                             {"wait", 128},
                                                             {"compute", 128},
                                                             {"epilogue", 128}}));
  for (const std::string name : {"load", "wait_empty", "wait", "compute"})
    EXPECT_EQ(sampled.tiles.at(name), (std::set<int>{0, 8, 16, 24})) << name;
  EXPECT_EQ(all.tiles.at("compute").size(), 32u);
}

TEST(SampledFixture, CutlassTilesOutsideTheSampleRecordNothing) {
  // Example 54 at 256x256x512: 4 tiles of 128x128 on 4 CTAs, 4 k-tiles each; bench/cutlass's
  // TRACE_SAMPLE / TRACE_SAMPLE_REST keep the tiles whose M and N indices sum to a multiple of 8:
  // tile (0, 0) alone.
  const RunTrace trace = test::decoded_run_file(kDir + "/cutlass54_sampled_run.ctrace");
  ASSERT_EQ(trace.launches.size(), 3u); // the warm-up and --iterations=2
  for (const RunLaunch &l : trace.launches) {
    EXPECT_TRUE(l.trace.problems.empty()) << l.trace.problems.front();
    std::map<std::string, uint32_t> counts;
    std::set<uint32_t> ctas;
    for (const Row &row : l.trace.rows)
      for (const Slice &s : row.slices) {
        ++counts[s.name];
        ctas.insert(row.cta);
        EXPECT_FALSE(s.incomplete) << s.name;
      }
    // One tile: its 4 loads, its 4 k-tiles consumed by both consumer warpgroups, their epilogues.
    EXPECT_EQ(counts, (std::map<std::string, uint32_t>{
                          {"load_tile", 4}, {"consume", 8}, {"epilogue", 2}}));
    EXPECT_EQ(ctas.size(), 1u);
  }
}

} // namespace
