// The decoder on raw dumps recorded on an NVIDIA H200 (test/data/h200/README.md). Expected
// numbers come from the example sources, not from the decoder:
//   examples/warp_specialized: m=128, n=96, k=256, 32x32 tiles, kTileK=16 -> grid 3x4 = 12 CTAs,
//     16 k-tiles; producer row per k-tile: BEGIN produce, stage_ready, END produce (3 events);
//     consumer row: 3 per k-tile + epilogue BEGIN/END = 50 events.
//   examples/reduction: n=100003, 1024 items per block -> 98 blocks with data, grid rounded up to
//     104; the 6 past the end record `idle` and return before `load`; 256 threads -> 8 tree steps.
//   test/inputs/traced/early_exits.cu: 2 CTAs, one `kernel` range each, every `step` closed.
#include "support/buffer_builder.h"
#include <cutrace/ctrace.h>
#include <cutrace/export.h>

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include "support/tree_paths.h"


namespace cutrace {
namespace {

constexpr uint32_t kH200SmCount = 132;
constexpr int kKTiles = 256 / 16; // k / kTileK
constexpr uint32_t kGemmCtas = (96 / 32) * (128 / 32);

std::string data_dir() {
  return CUTRACE_TEST_DATA;
}

struct Fixture {
  Ctrace raw;
  DecodeMap map;
  Trace trace;
};

Fixture load(const std::string &name) {
  Fixture f;
  Expected<Ctrace> raw = read_ctrace_file(data_dir() + "/h200/" + name + ".ctrace");
  EXPECT_TRUE(raw) << raw.error;
  if (!raw)
    return f;
  f.raw = *raw;
  Expected<DecodeMap> map = parse_decode_map(f.raw.map_json);
  EXPECT_TRUE(map) << map.error;
  if (map)
    f.map = *map;
  Expected<Trace> t = decode_ctrace(f.raw);
  EXPECT_TRUE(t) << t.error;
  if (t)
    f.trace = *t;
  return f;
}

const std::vector<std::string> kAll = {"ws_gemm",       "ws_gemm_overflow", "block_sum",
                                       "early_exits",   "pipeline",         "ticker_explicit",
                                       "ws_gemm_cmake", "doomed_mapped"};

// Slices named `name` of one CTA, in time order.
std::vector<const Slice *> slices_of(const Trace &t, uint32_t cta, const std::string &name) {
  std::vector<const Slice *> out;
  for (const Row &r : t.rows)
    if (r.cta == cta)
      for (const Slice &s : r.slices)
        if (s.name == name)
          out.push_back(&s);
  std::sort(out.begin(), out.end(),
            [](const Slice *a, const Slice *b) { return a->begin_cycles < b->begin_cycles; });
  return out;
}

size_t instants_of(const Trace &t, uint32_t cta, const std::string &name) {
  size_t n = 0;
  for (const Row &r : t.rows)
    if (r.cta == cta)
      for (const Instant &i : r.instants)
        n += i.name == name;
  return n;
}

TEST(Fixture, AllDecodeWithoutProblems) {
  for (const std::string &name : kAll) {
    Fixture f = load(name);
    EXPECT_TRUE(f.trace.ok()) << name << ": " << f.trace.problems.front();
  }
}

TEST(Fixture, WarpSpecializedTileCountEqualsKLoopTripCount) {
  Fixture f = load("ws_gemm");
  ASSERT_EQ(f.trace.header.num_ctas(), kGemmCtas);
  for (uint32_t cta = 0; cta < kGemmCtas; ++cta) {
    const auto produce = slices_of(f.trace, cta, "produce");
    const auto consume = slices_of(f.trace, cta, "consume");
    ASSERT_EQ(produce.size(), size_t(kKTiles)) << "CTA " << cta;
    ASSERT_EQ(consume.size(), size_t(kKTiles)) << "CTA " << cta;
    for (int kt = 0; kt < kKTiles; ++kt) { // the payload is the k-tile index
      EXPECT_EQ(produce[kt]->payload, kt);
      EXPECT_EQ(consume[kt]->payload, kt);
    }
    EXPECT_EQ(instants_of(f.trace, cta, "stage_ready"), size_t(kKTiles));
    EXPECT_EQ(instants_of(f.trace, cta, "stage_free"), size_t(kKTiles));
    EXPECT_EQ(slices_of(f.trace, cta, "epilogue").size(), 1u);
  }
}

TEST(Fixture, ProducerEndPrecedesPairedConsumerEnd) {
  // Consumer k-tile i waits on "full" which the producer arrives on inside produce i.
  Fixture f = load("ws_gemm");
  for (uint32_t cta = 0; cta < kGemmCtas; ++cta) {
    const auto produce = slices_of(f.trace, cta, "produce");
    const auto consume = slices_of(f.trace, cta, "consume");
    ASSERT_EQ(produce.size(), consume.size());
    for (size_t i = 0; i < produce.size(); ++i)
      EXPECT_LE(produce[i]->end_cycles, consume[i]->end_cycles) << "CTA " << cta << " tile " << i;
  }
}

TEST(Fixture, FlowsPairIthProduceWithIthConsume) {
  Fixture f = load("ws_gemm");
  const Trace &t = f.trace;
  EXPECT_EQ(t.flows.size(), size_t(kGemmCtas) * kKTiles);
  EXPECT_EQ(t.backward_flows, 0u);
  EXPECT_EQ(t.unpaired_flows, 0u);
  std::map<uint32_t, int> per_cta;
  for (const Flow &fl : t.flows) {
    const Slice &src = t.rows[fl.src.row].slices[fl.src.slice];
    const Slice &dst = t.rows[fl.dst.row].slices[fl.dst.slice];
    EXPECT_EQ(src.name, "produce");
    EXPECT_EQ(dst.name, "consume");
    EXPECT_EQ(src.payload, dst.payload); // the i-th with the i-th: same k-tile
    EXPECT_EQ(t.rows[fl.src.row].cta, t.rows[fl.dst.row].cta);
    EXPECT_EQ(fl.at_cycles, std::max(dst.begin_cycles, src.end_cycles));
    EXPECT_LE(dst.begin_ns, fl.at_ns);
    EXPECT_LE(fl.at_ns, dst.end_ns);
    ++per_cta[t.rows[fl.src.row].cta];
  }
  EXPECT_EQ(per_cta.size(), size_t(kGemmCtas));
  for (const auto &[cta, n] : per_cta)
    EXPECT_EQ(n, kKTiles) << "CTA " << cta;
}

TEST(Fixture, MeasuredClockRatesAreBetween0_5And2_5GHz) {
  size_t measured = 0;
  for (const std::string &name : kAll) {
    Fixture f = load(name);
    for (const Row &r : f.trace.rows) {
      if (r.ghz_source != RateSource::measured)
        continue;
      ++measured;
      EXPECT_GT(r.ghz, 0.5) << name << " row " << r.index;
      EXPECT_LT(r.ghz, 2.5) << name << " row " << r.index;
    }
  }
  EXPECT_GT(measured, 0u);
}

TEST(Fixture, ShortRowsGetARateNearTheCalibratedClock) {
  // block_sum rows span ~1 us each, one CTA per SM: no row or SM is measurable alone. A
  // calibration kernel measured 1.9801 GHz on this H200; the constant default is 1.755.
  Fixture f = load("block_sum");
  for (const Row &r : f.trace.rows) {
    EXPECT_NE(r.ghz_source, RateSource::default_rate) << "row " << r.index;
    EXPECT_NEAR(r.ghz, 1.9801, 0.02) << "row " << r.index;
  }
}

TEST(Fixture, GlobalDurationsAreCyclesOverRateNotQuantized) {
  // %globaltimer is ns since 1970 (~1.8e18), where a double steps by 256 ns.
  Fixture f = load("ws_gemm");
  EXPECT_GT(f.trace.origin_ns, uint64_t(1) << 60);
  std::set<double> ns_durations;
  std::set<uint64_t> cycle_durations;
  for (const Row &r : f.trace.rows)
    for (const Slice &s : r.slices) {
      if (s.name != "consume")
        continue;
      const uint64_t cycles = s.end_cycles - s.begin_cycles;
      EXPECT_NEAR(s.end_ns - s.begin_ns, double(cycles) / r.ghz, 0.01);
      ns_durations.insert(s.end_ns - s.begin_ns);
      cycle_durations.insert(cycles);
    }
  EXPECT_GT(cycle_durations.size(), 50u);
  EXPECT_GE(ns_durations.size(), cycle_durations.size());
}

TEST(Fixture, SmIdsBelowSmCount) {
  for (const std::string &name : kAll) {
    Fixture f = load(name);
    for (const Row &r : f.trace.rows)
      if (r.started)
        EXPECT_LT(r.smid, kH200SmCount) << name << " row " << r.index;
  }
}

TEST(Fixture, OverflowKeepsFirstEightAndCountsDropped) {
  Fixture f = load("ws_gemm_overflow");
  const Trace &t = f.trace;
  ASSERT_EQ(t.header.max_events, 8u);
  ASSERT_EQ(f.map.groups.size(), 2u);
  const uint32_t producer_events = 3 * kKTiles, consumer_events = 3 * kKTiles + 2;
  uint64_t dropped = 0;
  for (const Row &r : t.rows) {
    const bool producer = f.map.groups[r.group].name == "producer";
    const uint32_t attempted = producer ? producer_events : consumer_events;
    EXPECT_EQ(r.attempted, attempted) << "row " << r.index;
    EXPECT_EQ(r.stored, 8u);
    EXPECT_EQ(r.dropped, attempted - 8);
    dropped += r.dropped;
    // The first 8 events: B I E, B I E, B I -> tiles 0 and 1 whole, tile 2 still open.
    ASSERT_EQ(r.slices.size(), 3u);
    EXPECT_EQ(r.instants.size(), 3u);
    for (int kt = 0; kt < 3; ++kt) {
      EXPECT_EQ(r.slices[kt].payload, kt);
      EXPECT_EQ(r.slices[kt].incomplete, kt == 2);
    }
  }
  EXPECT_EQ(dropped, uint64_t(kGemmCtas) * (producer_events - 8 + consumer_events - 8));
}

TEST(Fixture, ReductionIdleBlocksReturnEarly) {
  Fixture f = load("block_sum");
  const Trace &t = f.trace;
  const uint32_t blocks = 104, with_data = (100003 + 1023) / 1024;
  ASSERT_EQ(t.header.num_ctas(), blocks);
  for (uint32_t cta = 0; cta < blocks; ++cta) {
    const bool idle = cta >= with_data;
    EXPECT_EQ(instants_of(t, cta, "idle"), idle ? 1u : 0u) << "CTA " << cta;
    EXPECT_EQ(slices_of(t, cta, "load").size(), idle ? 0u : 1u) << "CTA " << cta;
    EXPECT_EQ(slices_of(t, cta, "tree").size(), idle ? 0u : 8u) << "CTA " << cta;
    const auto block = slices_of(t, cta, "block");
    ASSERT_EQ(block.size(), 1u);
    EXPECT_FALSE(block[0]->incomplete); // closed at the early return too
    EXPECT_EQ(block[0]->payload, int32_t(cta));
  }
}

TEST(Fixture, EarlyExitRangesAllClosed) {
  Fixture f = load("early_exits");
  const Trace &t = f.trace;
  ASSERT_EQ(t.header.num_ctas(), 2u);
  for (const Row &r : t.rows) {
    EXPECT_TRUE(r.closed);
    EXPECT_EQ(r.unmatched_ends, 0u);
    EXPECT_EQ(r.dropped, 0u);
    for (const Slice &s : r.slices)
      EXPECT_FALSE(s.incomplete) << s.name << " in row " << r.index;
    EXPECT_EQ(slices_of(t, r.cta, "kernel").size(), 1u);
  }
}

using test_support::read32;
using test_support::read64;

TEST(Fixture, RowsNeverOverlap) {
  // Each (CTA, group) owns one row: its header names that row, its records fit the row, and
  // no record lies past the row's own count (the slot after the last one stays zero).
  for (const std::string &name : kAll) {
    Fixture f = load(name);
    const BufferHeader &h = f.trace.header;
    ASSERT_EQ(f.raw.buffer.size(), h.buffer_bytes()) << name;
    for (uint32_t r = 0; r < h.num_rows; ++r) {
      const uint8_t *row =
          f.raw.buffer.data() + kBufferHeaderBytes + uint64_t(r) * h.row_stride_bytes;
      if (read32(row) != kRowStartTag)
        continue;
      EXPECT_EQ(read32(row + 24), r / h.num_groups) << name << " row " << r;
      EXPECT_EQ(read32(row + 28), r % h.num_groups) << name << " row " << r;
      const Row &dec = f.trace.rows[r];
      EXPECT_LE(dec.stored, h.max_events);
      EXPECT_EQ(dec.stored, std::min(dec.attempted, h.max_events)) << name << " row " << r;
      if (dec.stored < h.max_events)
        EXPECT_EQ(read32(row + kRowHeaderBytes + dec.stored * kLegacyRecordBytes), 0u);
    }
  }
}

TEST(Fixture, EventsInTimeOrderPerRow) {
  for (const std::string &name : kAll) {
    Fixture f = load(name);
    const BufferHeader &h = f.trace.header;
    const bool cycles = h.clock == Clock::clock64;
    for (uint32_t r = 0; r < h.num_rows; ++r) {
      const uint8_t *row =
          f.raw.buffer.data() + kBufferHeaderBytes + uint64_t(r) * h.row_stride_bytes;
      if (read32(row) != kRowStartTag)
        continue;
      uint64_t prev = read64(row + (cycles ? 16 : 8));
      const uint64_t end = read64(row + (cycles ? 48 : 40));
      for (uint32_t i = 0; i < h.max_events; ++i) {
        const uint8_t *rec = row + kRowHeaderBytes + uint64_t(i) * kLegacyRecordBytes;
        if (read32(rec) == 0)
          break;
        const uint64_t ts = read64(rec + 8);
        EXPECT_LE(prev, ts) << name << " row " << r << " record " << i;
        prev = ts;
      }
      if (read32(row + 32) == kRowEndTag)
        EXPECT_LE(prev, end) << name << " row " << r;
    }
  }
}

} // namespace
} // namespace cutrace

namespace cutrace {
namespace {

TEST(Fixture, PerfettoFlowFinishLiesInsideItsConsumeSlice) {
  // "f" with bp "e" binds to the slice enclosing its timestamp on its thread: that must be the
  // paired consume, so ts must lie within it (the exported ts has ns resolution: 0.001 us).
  Fixture f = load("ws_gemm");
  const nlohmann::json doc = nlohmann::json::parse(export_perfetto(f.map, f.trace));
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> consume; // (pid,tid)
  std::vector<nlohmann::json> finishes;
  for (const nlohmann::json &e : doc["traceEvents"]) {
    if (e["ph"] == "X" && e["name"] == "consume")
      consume[{e["pid"], e["tid"]}].emplace_back(e["ts"],
                                                 e["ts"].get<double>() + e["dur"].get<double>());
    if (e["ph"] == "f")
      finishes.push_back(e);
  }
  ASSERT_EQ(finishes.size(), f.trace.flows.size());
  for (const nlohmann::json &e : finishes) {
    EXPECT_EQ(e["bp"], "e");
    const double ts = e["ts"];
    int enclosing = 0;
    for (auto [b, end] : consume[{e["pid"], e["tid"]}])
      enclosing += b - 0.0005 <= ts && ts <= end + 0.0005;
    EXPECT_EQ(enclosing, 1) << e.dump();
  }
}

// ws_gemm_cmake: the same example built through find_package(cutrace) + cutrace_instrument on
// the H200 (bench/results/2026-11-29-h200/cmake_e2e/), by the runtime that keeps the header on
// the host and records the device's peak clock in it.
TEST(Fixture, CmakeBuiltTraceCarriesDeviceClockAndSameCounts) {
  Fixture f = load("ws_gemm_cmake");
  EXPECT_EQ(f.trace.header.device_clock_khz, 1980000u) << "H200 peak SM clock";
  for (uint32_t cta = 0; cta < kGemmCtas; ++cta) {
    EXPECT_EQ(slices_of(f.trace, cta, "produce").size(), size_t(kKTiles)) << "CTA " << cta;
    EXPECT_EQ(slices_of(f.trace, cta, "consume").size(), size_t(kKTiles)) << "CTA " << cta;
  }
}

// doomed_mapped: test/device/trap.cu, 8 CTAs x 100 steps, CTA 3 executes __trap() at step 10;
// recorded with CUTRACE_MAPPED=1 (buffers in mapped host memory), so the host could read the
// buffer after the trap. The trapping CTA's row shows exactly where it stopped.
TEST(Fixture, TrappedCtaKeepsEverythingRecordedBeforeTheTrap) {
  Fixture f = load("doomed_mapped");
  ASSERT_EQ(f.trace.rows.size(), 8u);
  for (const Row &r : f.trace.rows) {
    const size_t steps = instants_of(f.trace, r.cta, "step");
    if (r.cta == 3) {
      EXPECT_FALSE(r.closed) << "the trapped row never wrote its end header";
      EXPECT_EQ(steps, 11u) << "steps 0..10: the trap hit after recording step 10";
      ASSERT_EQ(r.slices.size(), 1u);
      EXPECT_TRUE(r.slices[0].incomplete) << "the kernel range never ended";
    } else {
      EXPECT_TRUE(r.closed) << "CTA " << r.cta;
      EXPECT_EQ(steps, 100u) << "CTA " << r.cta;
    }
  }
}

} // namespace
} // namespace cutrace
