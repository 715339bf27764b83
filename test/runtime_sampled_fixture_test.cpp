// A TRACE_SAMPLE run recorded on an H200 (test/data/h200/sampled/README.md): examples/hopper_pipeline
// with each role's k-loop sampled every 8th tile of the CTA, beside the same launch recording
// every tile. The sampled run holds the k-loop ranges of exactly the selected tiles, the epilogue
// of every tile, and nothing else is lost.
#include <cutrace/run_trace.h>

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#ifndef CUTRACE_TEST_DATA
#define CUTRACE_TEST_DATA "test/data"
#endif

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
  Expected<Run> run = read_run_file(kDir + "/" + name);
  EXPECT_TRUE(run) << run.error;
  if (!run)
    return d;
  Expected<RunTrace> trace = decode_run(*run, name);
  EXPECT_TRUE(trace) << trace.error;
  if (!trace)
    return d;
  d.run = std::move(*trace);
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

} // namespace
