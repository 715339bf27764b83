// CUTLASS 3 Hopper GEMMs traced as written (bench/cutlass: annotate.py, prepare.sh,
// h200_cutlass.sh), recorded on an H200 at a small problem size with every launch recorded: the
// files in test/data/h200/cutlass/. The rows come from the kernel class's operator() (a
// "producer" row written by thread 0, one "consumer" row per consumer warpgroup), the ranges from
// the collective mainloop's load() ("load_tile") and mma() ("consume"), each with the pipeline's
// k-tile sequence number as payload, so every consume has exactly one load of its tile.
#include <cutrace/run_trace.h>

#include "support/run_file_fixture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>
#include "support/tree_paths.h"


namespace cutrace {
namespace {

const std::string kDir = std::string(CUTRACE_TEST_DATA) + "/h200/cutlass";

std::vector<std::string> runFiles() {
  std::vector<std::string> files;
  if (std::filesystem::is_directory(kDir))
    for (const auto &e : std::filesystem::directory_iterator(kDir))
      if (e.path().extension() == ".ctrace")
        files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// The run files are committed: a missing one is a failure, not a skip.
#define REQUIRE_FIXTURES()                                                                     \
  ASSERT_EQ(runFiles().size(), 2u) << kDir << ": the run files of examples 49 and 54 (recorded by " \
                                      "bench/cutlass/h200_cutlass.sh)"

RunTrace decoded(const std::string &path) { return test::decoded_run_file(path); }

// The launches of the annotated schedules: a producer row that recorded. One decode map serves
// every instance of cutlass::device_kernel, so the instances of schedules left unannotated (the
// non-cooperative kernels of example 49) have the rows too, empty.
std::vector<const RunLaunch *> pipelineLaunches(const RunTrace &run) {
  std::vector<const RunLaunch *> out;
  for (const RunLaunch &l : run.launches)
    for (const Row &r : l.trace.rows)
      if (r.label == "producer" && !r.slices.empty()) {
        out.push_back(&l);
        break;
      }
  return out;
}

struct Cta {
  int producers = 0;
  int consumers = 0;
  std::map<int32_t, std::vector<const Slice *>> loads, consumes; // by k-tile sequence number
};

std::map<uint32_t, Cta> byCta(const Trace &t) {
  std::map<uint32_t, Cta> ctas;
  for (const Row &r : t.rows) {
    Cta &c = ctas[r.cta];
    const bool producer = r.label == "producer";
    const bool consumer = r.label.rfind("consumer", 0) == 0;
    c.producers += producer;
    c.consumers += consumer;
    for (const Slice &s : r.slices) {
      if (s.name == "load_tile" && producer)
        c.loads[s.payload].push_back(&s);
      if (s.name == "consume" && consumer)
        c.consumes[s.payload].push_back(&s);
    }
  }
  return ctas;
}

TEST(CutlassFixture, EveryLaunchOfThePipelineKernelsRecordedCompletely) {
  REQUIRE_FIXTURES();
  const std::vector<std::string> files = runFiles();
  for (const std::string &f : files) {
    const RunTrace run = decoded(f);
    ASSERT_FALSE(run.processes.empty()) << f;
    EXPECT_TRUE(run.processes[0].complete) << f;
    const std::vector<const RunLaunch *> launches = pipelineLaunches(run);
    EXPECT_FALSE(launches.empty()) << f << ": no launch has a producer row";
    for (const RunLaunch *l : launches) {
      EXPECT_TRUE(l->trace.problems.empty()) << f << ": " << l->trace.problems.front();
      for (const Row &r : l->trace.rows) {
        EXPECT_TRUE(r.started && r.closed) << f << " CTA " << r.cta << " " << r.label;
        EXPECT_EQ(r.dropped, 0u) << f << " CTA " << r.cta << " " << r.label;
      }
    }
  }
}

TEST(CutlassFixture, EveryCtaHasItsProducerRowAndOneRowPerConsumerWarpgroup) {
  REQUIRE_FIXTURES();
  for (const std::string &f : runFiles()) {
    const RunTrace run = decoded(f);
    for (const RunLaunch *l : pipelineLaunches(run)) {
      const uint32_t ctas = l->grid[0] * l->grid[1] * l->grid[2];
      const uint32_t warpgroups = l->block[0] * l->block[1] * l->block[2] / 128;
      const std::map<uint32_t, Cta> byId = byCta(l->trace);
      EXPECT_EQ(byId.size(), ctas) << f << " launch " << l->sequence;
      for (const auto &[id, c] : byId) {
        EXPECT_EQ(c.producers, 1) << f << " launch " << l->sequence << " CTA " << id;
        EXPECT_EQ(c.consumers, int(warpgroups) - 1) << f << " launch " << l->sequence << " CTA " << id;
      }
    }
  }
}

TEST(CutlassFixture, EachConsumedKTilePairsWithOneLoadThatBeganBeforeIt) {
  REQUIRE_FIXTURES();
  for (const std::string &f : runFiles()) {
    const RunTrace run = decoded(f);
    size_t paired = 0;
    for (const RunLaunch *l : pipelineLaunches(run))
      for (const auto &[id, c] : byCta(l->trace)) {
        // A persistent schedule launches a CTA per SM: those left without a tile load nothing.
        if (c.loads.empty())
          EXPECT_TRUE(c.consumes.empty()) << f << " launch " << l->sequence << " CTA " << id;
        for (const auto &[k, consumes] : c.consumes) {
          auto load = c.loads.find(k);
          ASSERT_NE(load, c.loads.end()) << f << " CTA " << id << ": k-tile " << k << " never loaded";
          ASSERT_EQ(load->second.size(), 1u) << f << " CTA " << id << ": k-tile " << k;
          for (const Slice *s : consumes) {
            EXPECT_GE(s->begin_ns, load->second[0]->begin_ns) << f << " CTA " << id << " k " << k;
            ++paired;
          }
        }
        for (const auto &[k, loads] : c.loads)
          EXPECT_TRUE(c.consumes.count(k)) << f << " CTA " << id << ": k-tile " << k << " never consumed";
      }
    EXPECT_GT(paired, 0u) << f << ": no consume was paired with its load";
    std::cout << f << ": " << paired << " consumes paired with their loads\n";
  }
}

} // namespace
} // namespace cutrace
