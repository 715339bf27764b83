// The analyses of cutrace/analysis.h (docs/analysis.md) on synthetic launches whose answers can be
// computed by hand: every row runs at 1 GHz (DecodeOptions::ghz_override), so a cycle is a ns.
#include <cutrace/analysis.h>
#include <cutrace/decode.h>

#include "support/buffer_builder.h"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

namespace cutrace {
namespace {

using test_support::BufferBuilder;

constexpr auto B = RecordKind::begin, E = RecordKind::end, I = RecordKind::instant;

// Sites: 0 produce (range, group producer), 1 consume (range, consumer), 2 inner (range,
// consumer, lane mma), 3 ready (record, producer). TRACE_DAG("produce", "consume").
DecodeMap pipeline_map() {
  Expected<DecodeMap> map = parse_decode_map(R"({"format_version":1,"kernel":"pipe",
 "source":"pipe.cu","max_events":64,"clock":"clock64",
 "groups":[{"index":0,"name":"producer","lead":"0"},{"index":1,"name":"consumer","lead":"32"}],
 "lanes":["main","mma"],
 "sites":[{"id":0,"kind":"range","name":"produce","lane":0,"group":0,"loc":"pipe.cu:10:3"},
          {"id":1,"kind":"range","name":"consume","lane":0,"group":1,"loc":"pipe.cu:20:3"},
          {"id":2,"kind":"range","name":"inner","lane":1,"group":1,"loc":"pipe.cu:21:5"},
          {"id":3,"kind":"record","name":"ready","lane":0,"group":0,"loc":"pipe.cu:12:3"}],
 "flows":[{"src":"produce","dst":"consume"}]})");
  EXPECT_TRUE(map) << map.error;
  return *map;
}

// One group, one row per CTA: a CTA is its row.
DecodeMap block_map() {
  Expected<DecodeMap> map = parse_decode_map(R"({"format_version":1,"kernel":"blocks",
 "source":"b.cu","max_events":16,"clock":"clock64",
 "groups":[{"index":0,"name":"block","lead":"0"}],"lanes":["main"],
 "sites":[{"id":0,"kind":"range","name":"work","lane":0,"group":0,"loc":"b.cu:5:3"}],
 "flows":[]})");
  EXPECT_TRUE(map) << map.error;
  return *map;
}

constexpr uint64_t kNs0 = 1'000'000, kCyc0 = 5'000'000; // row clocks at time 0

// A launch being built: rows get their end headers when it is decoded (an end header counts the
// records written before it).
struct Launch {
  BufferBuilder b;
  std::vector<std::array<uint64_t, 3>> ends; // cta, group, time

  Launch(uint32_t ctas, uint32_t rows, uint32_t max_events = 64)
      : b(ctas, rows, max_events, Clock::clock64, 64) {}
  // Row (cta, group) alive over [from, to] (ns = cycles since time 0) on SM `sm`.
  void live(uint32_t cta, uint32_t group, uint64_t from, uint64_t to, uint32_t sm = 0) {
    b.start(cta, group, kNs0 + from, kCyc0 + from, sm);
    ends.push_back({cta, group, to});
  }
  void range(uint32_t cta, uint32_t group, uint32_t site, uint64_t from, uint64_t to,
             int32_t payload = 0) {
    b.event(cta, group, B, site, payload, kCyc0 + from);
    b.event(cta, group, E, site, payload, kCyc0 + to);
  }
  void at(uint32_t cta, uint32_t group, RecordKind kind, uint32_t site, uint64_t t) {
    b.event(cta, group, kind, site, 0, kCyc0 + t);
  }
  Trace decode_at_1ghz(const DecodeMap &map) {
    for (const auto &[cta, group, to] : ends)
      b.end(uint32_t(cta), uint32_t(group), kNs0 + to, kCyc0 + to);
    ends.clear();
    DecodeOptions options;
    options.ghz_override = 1.0;
    Trace t = decode(map, b.bytes.data(), b.bytes.size(), options);
    EXPECT_TRUE(t.ok()) << t.problems.front();
    return t;
  }
};

// The consumer begins each of its 10 consume slices 100 cycles before the producer's produce
// ends: consume [1000k, 1000k + 150], produce [1000k - 200, 1000k + 100], k = 1..10, rows alive
// over [0, 12000]. With `gap`, each consume instead begins 30 cycles after its produce ends.
Trace waiting_consumer(bool gap = false) {
  Launch b(1, 2, 64);
  b.live(0, 0, 0, 12000);
  b.live(0, 1, 0, 12000);
  for (uint64_t k = 1; k <= 10; ++k) {
    b.range(0, 0, 0, 1000 * k - 200, 1000 * k + 100);
    if (gap)
      b.range(0, 1, 1, 1000 * k + 130, 1000 * k + 280);
    else
      b.range(0, 1, 1, 1000 * k, 1000 * k + 150);
  }
  return b.decode_at_1ghz(pipeline_map());
}

TEST(AnalysisHandoff, ConsumerThatWaits100CyclesBeforeEachOf10Slices) {
  const Trace t = waiting_consumer();
  const std::vector<HandoffPair> pairs = analyze_handoffs(pipeline_map(), t);
  ASSERT_EQ(pairs.size(), 1u);
  const HandoffPair &p = pairs[0];
  EXPECT_EQ(p.src, "produce");
  EXPECT_EQ(p.dst, "consume");
  EXPECT_EQ(p.count, 10u);
  EXPECT_EQ(p.waited, 10u);
  for (const Durations *d : {&p.wait_ns, &p.wait_cycles}) {
    EXPECT_DOUBLE_EQ(d->total, 1000);
    EXPECT_DOUBLE_EQ(d->mean, 100);
    EXPECT_DOUBLE_EQ(d->p50, 100);
    EXPECT_DOUBLE_EQ(d->p95, 100);
    EXPECT_DOUBLE_EQ(d->max, 100);
  }
  EXPECT_DOUBLE_EQ(p.gap_ns.max, 0);
  EXPECT_DOUBLE_EQ(p.after_ns.mean, 50); // consume end - produce end
  EXPECT_DOUBLE_EQ(p.after_cycles.total, 500);
  EXPECT_EQ(p.dst_rows, 1u);
  EXPECT_DOUBLE_EQ(p.dst_life_ns, 12000);
  EXPECT_DOUBLE_EQ(p.wait_fraction(), 1000.0 / 12000.0);
}

TEST(AnalysisHandoff, ConsumerThatBeginsAfterTheProducerEndedHasAGapAndNoWait) {
  const Trace t = waiting_consumer(/*gap=*/true);
  const HandoffPair p = analyze_handoffs(pipeline_map(), t).at(0);
  EXPECT_EQ(p.count, 10u);
  EXPECT_EQ(p.waited, 0u);
  EXPECT_DOUBLE_EQ(p.wait_ns.total, 0);
  EXPECT_DOUBLE_EQ(p.gap_ns.mean, 30);
  EXPECT_DOUBLE_EQ(p.gap_cycles.max, 30);
  EXPECT_DOUBLE_EQ(p.after_ns.mean, 150); // the whole consume
  EXPECT_DOUBLE_EQ(p.wait_fraction(), 0);
}

// Producer ranges that end at issue (an async copy): produce [1000k - 200, 1000k - 100], the
// consumer's own wait `inner` [1000k - 150, 1000k + 20] ending when the data lands, then consume
// [1000k + 30, 1000k + 180], k = 1..10.
TEST(AnalysisHandoff, AnArrowWhoseSrcEndsBeforeEveryDstMeasuresIssueToTheConsumersWait) {
  Launch b(1, 2, 64);
  b.live(0, 0, 0, 12000);
  b.live(0, 1, 0, 12000);
  for (uint64_t k = 1; k <= 10; ++k) {
    b.range(0, 0, 0, 1000 * k - 200, 1000 * k - 100);
    b.range(0, 1, 2, 1000 * k - 150, 1000 * k + 20);
    b.range(0, 1, 1, 1000 * k + 30, 1000 * k + 180);
  }
  const HandoffPair p = analyze_handoffs(pipeline_map(), b.decode_at_1ghz(pipeline_map())).at(0);
  EXPECT_EQ(p.waited, 0u);
  EXPECT_TRUE(p.measures_issue());
  EXPECT_EQ(p.ready_name, "inner"); // not the previous consume: that is the previous tile
  EXPECT_EQ(p.ready_count, 10u);
  EXPECT_DOUBLE_EQ(p.issue_to_ready_ns.mean, 120); // inner end - produce end
  EXPECT_DOUBLE_EQ(p.issue_to_ready_cycles.max, 120);
}

TEST(AnalysisHandoff, APairWithWaitsDoesNotClaimToMeasureIssue) {
  const HandoffPair p = analyze_handoffs(pipeline_map(), waiting_consumer()).at(0);
  EXPECT_FALSE(p.measures_issue());
  EXPECT_EQ(p.ready_count, 0u);
}

// CTA 0: 5 produce, 10 consume (5 get no flow); CTA 1: a consumer row with 2 consume and no
// producer slice at all. Every row holding consume is in the wait fraction's denominator.
TEST(AnalysisHandoff, WaitFractionCountsEveryRowHoldingDstAndUnpairedDstAreCounted) {
  Launch b(2, 2, 64);
  for (uint32_t cta = 0; cta < 2; ++cta) {
    b.live(cta, 0, 0, 12000);
    b.live(cta, 1, 0, 12000);
  }
  for (uint64_t k = 1; k <= 10; ++k) {
    if (k <= 5)
      b.range(0, 0, 0, 1000 * k - 200, 1000 * k + 100);
    b.range(0, 1, 1, 1000 * k, 1000 * k + 150);
  }
  b.range(1, 1, 1, 100, 200);
  b.range(1, 1, 1, 300, 400);
  const HandoffPair p = analyze_handoffs(pipeline_map(), b.decode_at_1ghz(pipeline_map())).at(0);
  EXPECT_EQ(p.count, 5u);
  EXPECT_EQ(p.dst_slices, 12u);
  EXPECT_EQ(p.unpaired_dst, 7u);
  EXPECT_EQ(p.dst_rows, 2u);
  EXPECT_DOUBLE_EQ(p.dst_life_ns, 24000);
  EXPECT_DOUBLE_EQ(p.wait_fraction(), 500.0 / 24000.0);
}

TEST(AnalysisHandoff, TimingOfOneFlowIsWhatItsPairReports) {
  const Trace t = waiting_consumer();
  ASSERT_EQ(t.flows.size(), 10u);
  const HandoffTiming h = handoff_timing(t, t.flows[3]);
  EXPECT_DOUBLE_EQ(h.wait_ns, 100);
  EXPECT_DOUBLE_EQ(h.wait_cycles, 100);
  EXPECT_DOUBLE_EQ(h.gap_ns, 0);
  EXPECT_DOUBLE_EQ(h.after_cycles, 50);
}

TEST(AnalysisBusy, WaitsInsideConsumeAreBusyButNotBusyExcludingWaits) {
  const BusyReport b = analyze_busy(pipeline_map(), waiting_consumer());
  ASSERT_EQ(b.groups.size(), 2u);
  const BusyTotals &consumer = b.groups[1];
  EXPECT_EQ(consumer.name, "consumer");
  EXPECT_DOUBLE_EQ(consumer.life_ns, 12000);
  EXPECT_DOUBLE_EQ(consumer.busy_ns, 1500);
  EXPECT_DOUBLE_EQ(consumer.wait_ns, 1000);
  EXPECT_DOUBLE_EQ(consumer.busy_excluding_waits_ns(), 500);
  EXPECT_DOUBLE_EQ(consumer.idle_ns(), 10500);
  const BusyTotals &producer = b.groups[0];
  EXPECT_DOUBLE_EQ(producer.busy_ns, 3000);
  EXPECT_DOUBLE_EQ(producer.wait_ns, 0);
  ASSERT_EQ(b.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(b.rows[1].wait_ns, 1000);
}

TEST(AnalysisBusy, TimeByNameIsEachNamesSlicesOverTheRowsLifeMostFirst) {
  const BusyReport b = analyze_busy(pipeline_map(), waiting_consumer());
  const BusyTotals &producer = b.groups.at(0), &consumer = b.groups.at(1);
  ASSERT_EQ(producer.names.size(), 1u);
  EXPECT_EQ(producer.names[0].name, "produce");
  EXPECT_DOUBLE_EQ(producer.names[0].ns, 3000); // 10 x 300 of a 12000 ns life
  ASSERT_EQ(consumer.names.size(), 1u);
  EXPECT_DOUBLE_EQ(consumer.names[0].ns, 1500);
}

TEST(AnalysisBusy, NestedAndOverlappingRangesCountOnce) {
  Launch b(1, 2, 64);
  b.live(0, 0, 0, 1000);
  b.live(0, 1, 0, 1000);
  // consume [100, 300] holding inner [150, 200]; inner [250, 400] overlaps it on another lane.
  b.at(0, 1, B, 1, 100);
  b.range(0, 1, 2, 150, 200);
  b.at(0, 1, B, 2, 250);
  b.at(0, 1, E, 1, 300);
  b.at(0, 1, E, 2, 400);
  b.range(0, 1, 2, 600, 700);
  const BusyReport r = analyze_busy(pipeline_map(), b.decode_at_1ghz(pipeline_map()));
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(r.rows[1].busy_ns, 400); // [100, 400] and [600, 700]
  EXPECT_DOUBLE_EQ(r.rows[1].idle_ns(), 600);
  EXPECT_DOUBLE_EQ(r.rows[0].busy_ns, 0);
}

TEST(AnalysisBusy, SliceRowsAreSummedPerLabelOverCtas) {
  Expected<DecodeMap> map = parse_decode_map(R"({"format_version":1,"kernel":"w",
 "source":"w.cu","max_events":16,"clock":"clock64",
 "groups":[{"index":0,"name":"warp","lead":"slice","slice_threads":32,"first_thread":0}],
 "lanes":["main"],
 "sites":[{"id":0,"kind":"range","name":"work","lane":0,"group":0,"loc":"w.cu:5:3"}],
 "flows":[]})");
  ASSERT_TRUE(map) << map.error;
  Launch b(2, 2, 16); // 2 CTAs x 2 warps
  for (uint32_t c = 0; c < 2; ++c)
    for (uint32_t w = 0; w < 2; ++w) {
      b.live(c, w, 0, 1000, c);
      b.range(c, w, 0, 100, 200 + 100 * w); // warp 0 busy 100, warp 1 busy 200
    }
  const BusyReport r = analyze_busy(*map, b.decode_at_1ghz(*map));
  ASSERT_EQ(r.labels.size(), 2u);
  EXPECT_EQ(r.labels[0].name, "warp[w0]");
  EXPECT_EQ(r.labels[0].ctas, 2u);
  EXPECT_DOUBLE_EQ(r.labels[0].busy_ns, 200);
  EXPECT_DOUBLE_EQ(r.labels[1].busy_ns, 400);
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].rows, 4u);
  EXPECT_DOUBLE_EQ(r.groups[0].busy_fraction(), 600.0 / 4000.0);
}

// SM 0 runs CTAs 0, 1, 2 one after the other ([0,100], [100,200], [200,300]); SM 1 runs CTAs 3
// and 4 together ([0,150]) and then CTA 5 ([150,400]).
Trace two_sms_three_ctas_each() {
  Launch b(6, 1, 16);
  const uint64_t span[6][2] = {{0, 100}, {100, 200}, {200, 300}, {0, 150}, {0, 150}, {150, 400}};
  for (uint32_t c = 0; c < 6; ++c) {
    b.live(c, 0, span[c][0], span[c][1], c < 3 ? 0 : 1);
    b.range(c, 0, 0, span[c][0] + 10, span[c][1] - 10);
  }
  return b.decode_at_1ghz(block_map());
}

TEST(AnalysisTail, WavesAreTheMostCtasAtOnceOnAnSm) {
  const TailReport t = analyze_tail(two_sms_three_ctas_each());
  ASSERT_EQ(t.sms.size(), 2u);
  EXPECT_EQ(t.sms[0].max_concurrent, 1u); // back to back: a finish closes before a start
  EXPECT_EQ(t.sms[1].max_concurrent, 2u);
  EXPECT_EQ(t.max_concurrent_per_sm, 2u);
  EXPECT_EQ(t.waves, 3u); // SM 0: 3 CTAs one at a time
  EXPECT_DOUBLE_EQ(t.full_waves, 6.0 / (2 * 2));
  EXPECT_DOUBLE_EQ(t.sms[1].first_start_ns, 0);
  EXPECT_DOUBLE_EQ(t.sms[1].last_finish_ns, 400);
  EXPECT_DOUBLE_EQ(t.kernel_end_ns, 400);
  ASSERT_EQ(t.ctas.size(), 6u);
  EXPECT_DOUBLE_EQ(t.ctas[1].start_ns, 100);
  EXPECT_DOUBLE_EQ(t.ctas[1].finish_ns, 200);
  const std::vector<std::pair<double, uint32_t>> steps = {{0, 3}, {150, 2}, {300, 1}, {400, 0}};
  ASSERT_EQ(t.concurrency.size(), steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    EXPECT_DOUBLE_EQ(t.concurrency[i].at_ns, steps[i].first) << i;
    EXPECT_EQ(t.concurrency[i].running, steps[i].second) << i;
  }
  ASSERT_EQ(t.last.size(), 1u); // ceil(5% of 6)
  EXPECT_EQ(t.last[0].cta, 5u);
  EXPECT_EQ(t.last[0].smid, 1u);
}

TEST(AnalysisTail, UnderTwentyCtasTheTailIsTheLastCtasLagBehindTheNextToLast) {
  Launch b(3, 1, 16);
  b.live(0, 0, 0, 100, 0);
  b.live(1, 0, 0, 200, 1);
  b.live(2, 0, 0, 900, 2);
  const TailReport t = analyze_tail(b.decode_at_1ghz(block_map()));
  EXPECT_TRUE(t.few_ctas());
  EXPECT_DOUBLE_EQ(t.tail_ns, 0); // the 95th percentile is the last CTA
  EXPECT_DOUBLE_EQ(t.last_lag_ns, 700);
}

TEST(AnalysisTail, TailIsTheKernelEndMinusThe95thPercentileFinish) {
  // 20 CTAs, CTA i finishing at 100 + i, except CTA 7 at 1000: the 19th finish is 119.
  Launch b(20, 1, 16);
  for (uint32_t c = 0; c < 20; ++c)
    b.live(c, 0, 0, c == 7 ? 1000 : 100 + c, c);
  const TailReport t = analyze_tail(b.decode_at_1ghz(block_map()));
  EXPECT_DOUBLE_EQ(t.p95_finish_ns, 119);
  EXPECT_DOUBLE_EQ(t.tail_ns, 881);
  ASSERT_EQ(t.last.size(), 1u);
  EXPECT_EQ(t.last[0].cta, 7u);
  EXPECT_EQ(t.waves, 1u);
  EXPECT_DOUBLE_EQ(t.cta_duration_ns.max, 1000);
}

TEST(AnalysisHistogram, DurationsFallInEqualBinsBetweenMinAndMax) {
  Launch b(1, 1, 16);
  b.live(0, 0, 0, 10000);
  const uint64_t durations[] = {100, 110, 120, 150, 190, 200}; // 4 bins of 25 from 100 to 200
  uint64_t at = 0;
  for (uint64_t d : durations) {
    b.range(0, 0, 0, at, at + d);
    at += d + 10;
  }
  const Trace t = b.decode_at_1ghz(block_map());
  const std::vector<Histogram> hs = duration_histograms(t, 4);
  ASSERT_EQ(hs.size(), 1u);
  EXPECT_EQ(hs[0].count, 6u);
  EXPECT_DOUBLE_EQ(hs[0].min_ns, 100);
  EXPECT_DOUBLE_EQ(hs[0].bin_width_ns, 25);
  EXPECT_EQ(hs[0].bins, (std::vector<uint64_t>{3, 0, 1, 2})); // the max falls in the last bin
  EXPECT_TRUE(duration_histograms(t, 4, std::string("absent")).empty());
}

TEST(AnalysisOutliers, SlowestSlicesComeFirstWithCtaSmRowAndPayload) {
  Launch b(3, 1, 16);
  for (uint32_t c = 0; c < 3; ++c) {
    b.live(c, 0, 0, 1000, 10 + c);
    b.range(c, 0, 0, 0, 100 + 50 * c, int32_t(c * 7)); // CTA 2 is slowest
    b.range(c, 0, 0, 400, 420, 99);
  }
  const std::vector<Outlier> os = slowest_slices(b.decode_at_1ghz(block_map()), 2);
  ASSERT_EQ(os.size(), 2u);
  EXPECT_EQ(os[0].cta, 2u);
  EXPECT_EQ(os[0].smid, 12u);
  EXPECT_EQ(os[0].payload, 14);
  EXPECT_EQ(os[0].label, "block");
  EXPECT_DOUBLE_EQ(os[0].duration_ns, 200);
  EXPECT_EQ(os[0].duration_cycles, 200u);
  EXPECT_EQ(os[1].cta, 1u);
}

// Slices a [100,300], b [250,400], a [500,600]; instants at 350 and 700 (ns = cycles + 0: the
// CTA's first event is at 100, so its cycle axis is ns - 100).
Trace window_trace() {
  Expected<DecodeMap> map = parse_decode_map(R"({"format_version":1,"kernel":"win",
 "source":"w.cu","max_events":16,"clock":"clock64",
 "groups":[{"index":0,"name":"block","lead":"0"}],"lanes":["main","other"],
 "sites":[{"id":0,"kind":"range","name":"a","lane":0,"group":0,"loc":"w.cu:5:3"},
          {"id":1,"kind":"range","name":"b","lane":1,"group":0,"loc":"w.cu:6:3"},
          {"id":2,"kind":"record","name":"tick","lane":0,"group":0,"loc":"w.cu:7:3"}],
 "flows":[]})");
  EXPECT_TRUE(map) << map.error;
  Launch b(1, 1, 16);
  b.live(0, 0, 0, 1000);
  b.at(0, 0, B, 0, 100);
  b.at(0, 0, B, 1, 250);
  b.at(0, 0, E, 0, 300);
  b.at(0, 0, I, 2, 350);
  b.at(0, 0, E, 1, 400);
  b.range(0, 0, 0, 500, 600);
  b.at(0, 0, I, 2, 700);
  return b.decode_at_1ghz(*map);
}

// A kernel traced by --auto (docs/auto.md): site 0 the CTA's life, site 1 a loop's iterations.
DecodeMap auto_map() {
  Expected<DecodeMap> map = parse_decode_map(R"json({"format_version":1,"kernel":"k",
 "source":"k.cu","max_events":64,"clock":"clock64",
 "groups":[{"index":0,"name":"cta","lead":"0"}],"lanes":["main"],
 "sites":[{"id":0,"kind":"range","name":"k","lane":0,"group":0,"loc":"k.cu:1:30"},
          {"id":1,"kind":"range","name":"for (line 3)","lane":0,"group":0,"loc":"k.cu:3:3"}],
 "flows":[]})json");
  EXPECT_TRUE(map) << map.error;
  return *map;
}

// `trace-view analyze` runs the loop analysis by default on a trace of --auto only: its loop
// ranges are the tool's own, named after the loop's keyword and line.
TEST(AnalysisLoops, AutomaticLoopsAreKnownByTheirNames) {
  EXPECT_TRUE(has_automatic_loops(auto_map()));
  EXPECT_FALSE(has_automatic_loops(pipeline_map()));
  EXPECT_FALSE(has_automatic_loops(block_map()));
  DecodeMap renamed = auto_map();
  renamed.sites[1].name = "for (line three)";
  EXPECT_FALSE(has_automatic_loops(renamed));
}

TEST(AnalysisLoops, IterationsPerRowAreTheLargestPayloadPlusOneAndSpansAreCompared) {
  // CTA 0: 4 iterations of 100; CTA 1: 8 of 100, sampled (0-3, 5, 7 stored); CTA 2: 4 of 300.
  // Each life is one slice of its name: a name held once per row is no loop.
  Launch b(3, 1, 64);
  const std::vector<std::vector<int32_t>> stored = {{0, 1, 2, 3}, {0, 1, 2, 3, 5, 7}, {0, 1, 2, 3}};
  const uint64_t each[] = {100, 100, 300};
  for (uint32_t c = 0; c < 3; ++c) {
    b.live(c, 0, 0, 5000, c);
    b.range(c, 0, 0, 0, 4000);
    for (int32_t i : stored[c])
      b.range(c, 0, 1, 10 + i * each[c], 10 + (i + 1) * each[c], i);
  }
  const std::vector<LoopReport> loops = analyze_loops(b.decode_at_1ghz(auto_map()));
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0].name, "for (line 3)");
  ASSERT_EQ(loops[0].rows.size(), 3u);
  EXPECT_EQ(loops[0].rows[1].iterations, 8u);
  EXPECT_EQ(loops[0].rows[1].stored, 6u);
  EXPECT_DOUBLE_EQ(loops[0].iterations.p50, 4);
  EXPECT_DOUBLE_EQ(loops[0].iterations.max, 8);
  EXPECT_DOUBLE_EQ(loops[0].span_ns.p50, 800); // spans 400, 800, 1200
  EXPECT_DOUBLE_EQ(loops[0].span_ns.max, 1200);
  AnalysisReport r;
  r.kernel = "k";
  r.loops = loops;
  EXPECT_NE(format_analysis(r).find("loops      for (line 3): 4 to 8 iterations per row, span p50 "
                                    "800.0 ns, max 1200.0 ns (max is 1.50 x p50)"),
            std::string::npos)
      << format_analysis(r);
}

TEST(AnalysisWindow, SlicesThatIntersectTheWindowAreClippedToIt) {
  const WindowStats w = window_statistics(window_trace(), WindowAxis::ns, 200, 550);
  ASSERT_EQ(w.slices.size(), 2u);
  EXPECT_EQ(w.slices[0].name, "a");
  EXPECT_EQ(w.slices[0].count, 2u);
  EXPECT_DOUBLE_EQ(w.slices[0].clipped, 150); // [200,300] and [500,550]
  EXPECT_DOUBLE_EQ(w.slices[0].full, 300);
  EXPECT_EQ(w.slices[1].name, "b");
  EXPECT_DOUBLE_EQ(w.slices[1].clipped, 150);
  ASSERT_EQ(w.instants.size(), 1u);
  EXPECT_EQ(w.instants[0], (std::pair<std::string, uint64_t>("tick", 1)));
}

TEST(AnalysisWindow, BoundsAreInclusiveAndTheCycleAxisStartsAtTheCtasFirstEvent) {
  const Trace t = window_trace();
  // [600, 700] on the cycle axis is ns [700, 800]: only the instant at 700, on the bound.
  const WindowStats w = window_statistics(t, WindowAxis::cycles, 600, 700);
  EXPECT_TRUE(w.slices.empty());
  ASSERT_EQ(w.instants.size(), 1u);
  // A window touching a slice's end at one point counts the slice with nothing inside.
  const WindowStats touch = window_statistics(t, WindowAxis::ns, 600, 650);
  ASSERT_EQ(touch.slices.size(), 1u);
  EXPECT_EQ(touch.slices[0].count, 1u);
  EXPECT_DOUBLE_EQ(touch.slices[0].clipped, 0);
  EXPECT_DOUBLE_EQ(touch.slices[0].full, 100);
}

TEST(AnalysisJson, KeysCarryTheirUnits) {
  const Trace t = waiting_consumer();
  AnalysisReport r;
  r.kernel = t.kernel;
  r.header = t.header;
  r.handoffs = analyze_handoffs(pipeline_map(), t);
  r.window = window_statistics(t, WindowAxis::cycles, 0, 10);
  const std::string json = analysis_json(r);
  for (const char *key : {"\"wait_cycles\"", "\"wait_ns\"", "\"wait_fraction\"", "\"dst_life_ns\"",
                          "\"begin_cycles\"", "\"axis\": \"cycles\""})
    EXPECT_NE(json.find(key), std::string::npos) << key << "\n" << json;
  EXPECT_EQ(json.find("\"busy\""), std::string::npos); // not asked for
}

} // namespace
} // namespace cutrace
