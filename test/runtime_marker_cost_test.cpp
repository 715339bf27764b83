// Marker cost (docs/FORMAT.md, "Marker cost"): with DecodeOptions::marker_cost the decoder takes
// what the markers themselves cost out of the times inside slices. Synthetic 8-byte-record
// buffers laid out as cutrace/device.h writes them.
#include <cutrace/decode.h>
#include <cutrace/export.h>
#include <cutrace/marker_probe_map.h>
#include <cutrace/run.h>
#include <cutrace/run_trace.h>

#include "support/buffer_builder.h"
#include "support/run_file_fixture.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include "support/tree_paths.h"

namespace cutrace {
namespace {

using test_support::Buffer8Builder;

// Sites: 0 tile (scoped range), 1 step (explicit start/end), 2 mark (record); one group.
DecodeMap map_of(Clock clock = Clock::clock64) {
  std::string json = R"({"format_version":1,"kernel":"k","source":"k.cu","max_events":64,
   "clock":"CLOCK","groups":[{"index":0,"name":"block","lead":"0"}],"lanes":["main","inner"],
   "sites":[{"id":0,"kind":"range","name":"tile","lane":0,"group":0,"loc":"k.cu:1:1"},
            {"id":1,"kind":"range_start","name":"step","lane":1,"group":0,"loc":"k.cu:2:1"},
            {"id":2,"kind":"record","name":"mark","lane":0,"group":0,"loc":"k.cu:3:1"}],
   "flows":[]})";
  json.replace(json.find("CLOCK"), 5, clock == Clock::clock64 ? "clock64" : "globaltimer");
  Expected<DecodeMap> map = parse_decode_map(json);
  EXPECT_TRUE(map) << map.error;
  return *map;
}

// Costs: a scoped range's begin 2, its end 37, a stored event 7 (an H100's figures, in cycles).
DecodeOptions with_cost() {
  DecodeOptions options;
  options.marker_cost = MarkerCost{2, 37, 7};
  return options;
}

Trace decode_buffer(const Buffer8Builder &b, const DecodeOptions &options = {},
                    Clock clock = Clock::clock64) {
  return decode(map_of(clock), b.bytes.data(), b.bytes.size(), options);
}

uint64_t length(const Slice &s) { return s.end_cycles - s.begin_cycles; }

TEST(MarkerCost, AnEmptyRangeReadsNothingOnceItsBeginIsTakenOut) {
  Buffer8Builder b(1, 1, 64);
  b.start(0, 0, 1'000'000, 10'000'000);
  b.range(0, 0, 0, 0, 10'000'100, 10'000'102); // nothing inside: reads the begin's 2 cycles
  b.end(0, 0, 1'010'000, 10'020'000);
  const Trace raw = decode_buffer(b);
  const Trace fixed = decode_buffer(b, with_cost());
  ASSERT_TRUE(fixed.ok());
  EXPECT_EQ(length(raw.rows[0].slices[0]), 2u);
  EXPECT_EQ(length(fixed.rows[0].slices[0]), 0u);
  EXPECT_FALSE(raw.marker_cost);
  ASSERT_TRUE(fixed.marker_cost);
  EXPECT_DOUBLE_EQ(fixed.marker_cost->range_end, 37);
}

TEST(MarkerCost, EveryMarkerInsideARangeIsTakenOutAndTimesAfterItStayAsRecorded) {
  Buffer8Builder b(1, 1, 64);
  b.start(0, 0, 1'000'000, 10'000'000);
  // A range of 1000 cycles of code around two instants: 2 + 7 + 7 cycles of markers in it.
  b.event(0, 0, RecordKind::instant, 2, 0, 10'000'402);
  b.event(0, 0, RecordKind::instant, 2, 0, 10'000'809);
  b.range(0, 0, 0, 0, 10'000'000, 10'001'016);
  b.event(0, 0, RecordKind::instant, 2, 0, 10'002'000); // after the range: no slice open
  b.end(0, 0, 1'010'000, 10'020'000);
  const Trace t = decode_buffer(b, with_cost());
  ASSERT_TRUE(t.ok()) << t.problems.front();
  const Row &row = t.rows[0];
  ASSERT_EQ(row.slices.size(), 1u);
  ASSERT_EQ(row.instants.size(), 3u);
  EXPECT_EQ(length(row.slices[0]), 1000u);
  const uint64_t begin = row.slices[0].begin_cycles;
  EXPECT_EQ(row.instants[0].cycles - begin, 400u); // 402 less the range's begin
  EXPECT_EQ(row.instants[1].cycles - begin, 800u); // 809 less the begin and one instant
  EXPECT_EQ(row.instants[2].cycles - begin, 2000u);
  // The global view moves with it.
  EXPECT_NEAR(row.slices[0].end_ns - row.slices[0].begin_ns, 1000 / row.ghz, 1e-6);
}

TEST(MarkerCost, NestedSlicesStayInsideTheirParent) {
  Buffer8Builder b(1, 1, 64);
  b.start(0, 0, 1'000'000, 10'000'000);
  // step (explicit) [100, 600] holds tile [150, 300] (scoped) and a mark at 400.
  b.event(0, 0, RecordKind::begin, 1, 0, 10'000'100);
  b.range(0, 0, 0, 0, 10'000'150, 10'000'300);
  b.event(0, 0, RecordKind::instant, 2, 0, 10'000'400);
  b.event(0, 0, RecordKind::end, 1, 0, 10'000'600);
  b.end(0, 0, 1'010'000, 10'020'000);
  const Trace t = decode_buffer(b, with_cost());
  ASSERT_TRUE(t.ok()) << t.problems.front();
  const Row &row = t.rows[0];
  ASSERT_EQ(row.slices.size(), 2u);
  const Slice &step = row.slices[0], &tile = row.slices[1];
  ASSERT_EQ(step.name, "step");
  // step: 500 less its begin (7), tile's begin (2) and end (37), the mark (7).
  EXPECT_EQ(length(step), 500u - 7 - 2 - 37 - 7);
  EXPECT_EQ(length(tile), 150u - 2); // its own begin
  EXPECT_GE(tile.begin_cycles, step.begin_cycles);
  EXPECT_LE(tile.end_cycles, step.end_cycles);
  EXPECT_EQ(tile.begin_cycles - step.begin_cycles, 50u - 7);
}

TEST(MarkerCost, TimesNeverRunBackwardsWhenTheCostIsMoreThanTheGap) {
  Buffer8Builder b(1, 1, 64);
  b.start(0, 0, 1'000'000, 10'000'000);
  b.event(0, 0, RecordKind::instant, 2, 0, 10'000'101); // 1 cycle after the begin, cost 2
  b.event(0, 0, RecordKind::instant, 2, 0, 10'000'102);
  b.range(0, 0, 0, 0, 10'000'100, 10'000'103);
  b.end(0, 0, 1'010'000, 10'020'000);
  const Trace t = decode_buffer(b, with_cost());
  ASSERT_TRUE(t.ok()) << t.problems.front();
  const Row &row = t.rows[0];
  const uint64_t begin = row.slices[0].begin_cycles;
  EXPECT_EQ(row.instants[0].cycles, begin);
  EXPECT_EQ(row.instants[1].cycles, begin);
  EXPECT_EQ(row.slices[0].end_cycles, begin);
}

TEST(MarkerCost, GlobaltimerCostsAreNanoseconds) {
  Buffer8Builder b(1, 1, 64, Clock::globaltimer);
  b.start(0, 0, 1'000'000, 10'000'000);
  b.range(0, 0, 0, 0, 1'000'500, 1'001'502);
  b.end(0, 0, 1'010'000, 10'020'000);
  const Trace t = decode_buffer(b, with_cost(), Clock::globaltimer);
  ASSERT_TRUE(t.ok()) << t.problems.front();
  const Slice &s = t.rows[0].slices[0];
  EXPECT_DOUBLE_EQ(s.end_ns - s.begin_ns, 1000.0);
}

// A marker probe's buffer (cutrace/marker_probe.h's shapes and sites) whose empty range reads
// `empty`, a range around an instant `around`, an outer range `outer` around an inner one of
// `empty`, an explicit pair `explicit_pair`; and when `chain` is not 0, a range around an FMA
// chain of `chain` and one around the chain with an instant halfway of `chain_around`; when
// `long_chain` is not 0, a range around a longer chain of `long_chain`, one around the same chain
// cut in parts, each in its own range (of `empty`), of `around_ranges`, and one around the parts
// with an instant after each of `around_marks`.
std::vector<uint8_t> probe_buffer(uint64_t empty, uint64_t around, uint64_t outer,
                                  uint64_t explicit_pair, uint64_t chain = 0,
                                  uint64_t chain_around = 0, uint64_t long_chain = 0,
                                  uint64_t around_ranges = 0, uint64_t around_marks = 0) {
  Buffer8Builder b(1, 1, detail::kMarkerProbeEvents, Clock::clock64, detail::kMarkerProbeThreads);
  uint64_t t = 10'000'000;
  b.start(0, 0, 1'000'000, t);
  for (int i = 0; i < detail::kMarkerProbeReps; ++i, t += 100)
    b.range(0, 0, 0, 0, t, t + empty);
  for (int i = 0; i < detail::kMarkerProbeReps; ++i, t += 100) {
    b.event(0, 0, RecordKind::instant, 2, 0, t + 1);
    b.range(0, 0, 1, 0, t, t + around);
  }
  for (int i = 0; i < detail::kMarkerProbeReps; ++i, t += 100) {
    b.range(0, 0, 4, 0, t + 1, t + 1 + empty);
    b.range(0, 0, 3, 0, t, t + outer);
  }
  for (int i = 0; i < detail::kMarkerProbeReps; ++i, t += 100) {
    b.event(0, 0, RecordKind::begin, 5, 0, t);
    b.event(0, 0, RecordKind::end, 5, 0, t + explicit_pair);
  }
  for (int i = 0; chain != 0 && i < detail::kMarkerProbeReps; ++i, t += 300)
    b.range(0, 0, 6, 0, t, t + chain);
  for (int i = 0; chain != 0 && i < detail::kMarkerProbeReps; ++i, t += 300) {
    b.event(0, 0, RecordKind::instant, 8, 0, t + chain / 2);
    b.range(0, 0, 7, 0, t, t + chain_around);
  }
  for (int i = 0; long_chain != 0 && i < detail::kMarkerProbeReps; ++i, t += 2000)
    b.range(0, 0, 9, 0, t, t + long_chain);
  for (int i = 0; long_chain != 0 && i < detail::kMarkerProbeReps; ++i, t += 2000) {
    for (int p = 0; p < detail::kMarkerProbeParts; ++p) {
      const uint64_t at = t + 1 + uint64_t(p) * (around_ranges / detail::kMarkerProbeParts);
      b.range(0, 0, 11, 0, at, at + empty);
    }
    b.range(0, 0, 10, 0, t, t + around_ranges);
  }
  for (int i = 0; long_chain != 0 && i < detail::kMarkerProbeReps; ++i, t += 2000) {
    for (int p = 1; p <= detail::kMarkerProbeParts; ++p)
      b.event(0, 0, RecordKind::instant, 13, 0,
              t + uint64_t(p) * (around_marks / detail::kMarkerProbeParts) - 1);
    b.range(0, 0, 12, 0, t, t + around_marks);
  }
  b.end(0, 0, 1'000'000 + (t - 10'000'000) / 2, t);
  return b.bytes;
}

TEST(MarkerCost, TheProbeGivesEachMarkersCost) {
  const std::vector<uint8_t> probe = probe_buffer(2, 50, 41, 43);
  const Expected<MarkerCost> cost = marker_cost_from_probe(probe.data(), probe.size());
  ASSERT_TRUE(cost) << cost.error;
  EXPECT_DOUBLE_EQ(cost->range_begin, 2);
  EXPECT_DOUBLE_EQ(cost->range_end, 37); // 41 - 2 (the outer's begin) - 2 (the inner)
  EXPECT_DOUBLE_EQ(cost->event, 43);     // min(50 - 2, 43)
  // A probe that recorded too little says so instead of guessing.
  Buffer8Builder few(1, 1, detail::kMarkerProbeEvents);
  few.start(0, 0, 1'000'000, 10'000'000);
  few.range(0, 0, 0, 0, 10'000'100, 10'000'102);
  few.end(0, 0, 1'010'000, 10'020'000);
  const Expected<MarkerCost> none = marker_cost_from_probe(few.bytes.data(), few.bytes.size());
  ASSERT_FALSE(none);
  EXPECT_NE(none.error.find("too few"), std::string::npos) << none.error;
}

TEST(MarkerCost, AnInstantAmidDependentCodeCostsWhatItAddsThere) {
  // Figures like an H100's (36 cycles alone, 12 amid the FMA chain; here 11): the lower is taken
  // out.
  const std::vector<uint8_t> probe = probe_buffer(2, 38, 41, 43, 258, 269);
  const Expected<MarkerCost> cost = marker_cost_from_probe(probe.data(), probe.size());
  ASSERT_TRUE(cost) << cost.error;
  EXPECT_DOUBLE_EQ(cost->event, 11);
  EXPECT_DOUBLE_EQ(cost->range_end, 37);
  // A chain the instant did not lengthen (its cost hidden entirely) takes out nothing for it.
  const std::vector<uint8_t> hidden = probe_buffer(2, 38, 41, 43, 258, 250);
  const Expected<MarkerCost> none = marker_cost_from_probe(hidden.data(), hidden.size());
  ASSERT_TRUE(none) << none.error;
  EXPECT_DOUBLE_EQ(none->event, 0);
}

TEST(MarkerCost, MarkersAmidCodeCostWhatTheyAddThere) {
  // An H100's figures: a range end costs 36 after an empty range, but four ranges around the
  // parts of a 1,033-cycle chain lengthen it by 135, 33.75 each with their begins (2); four
  // instants after the parts lengthen it by 40, 10 each, where one alone costs 36.
  const std::vector<uint8_t> probe = probe_buffer(2, 38, 40, 43, 258, 269, 1033, 1168, 1073);
  const Expected<MarkerCost> cost = marker_cost_from_probe(probe.data(), probe.size());
  ASSERT_TRUE(cost) << cost.error;
  EXPECT_DOUBLE_EQ(cost->range_begin, 2);
  EXPECT_DOUBLE_EQ(cost->range_end, 31.75);
  EXPECT_DOUBLE_EQ(cost->event, 10);
  // A 1,168-cycle range around four such ranges (each recorded 258 cycles: its begin's 2 and 256
  // of code; 292 apart) then reads its code's 1,031 cycles, and each part its 256.
  Buffer8Builder b(1, 1, detail::kMarkerProbeEvents, Clock::clock64, detail::kMarkerProbeThreads);
  b.start(0, 0, 1'000'000, 10'000'000);
  for (uint64_t p = 0; p < 4; ++p) {
    const uint64_t at = 10'000'102 + p * 292;
    b.range(0, 0, 11, 0, at, at + 258);
  }
  b.range(0, 0, 10, 0, 10'000'100, 10'001'268);
  b.end(0, 0, 1'010'000, 10'020'000);
  Expected<DecodeMap> map = parse_decode_map(detail::kMarkerProbeMapJson);
  ASSERT_TRUE(map) << map.error;
  DecodeOptions options;
  options.marker_cost = *cost;
  const Trace t = decode(*map, b.bytes.data(), b.bytes.size(), options);
  ASSERT_TRUE(t.ok()) << t.problems.front();
  const auto outer = std::find_if(t.rows[0].slices.begin(), t.rows[0].slices.end(),
                                  [](const Slice &s) { return s.name == "chain_around_ranges"; });
  ASSERT_NE(outer, t.rows[0].slices.end());
  EXPECT_EQ(length(*outer), 1031u);
  for (const Slice &s : t.rows[0].slices)
    if (s.name == "chain_part")
      EXPECT_EQ(length(s), 256u);
  // Amid code a range's end may cost more than after an empty range (on an H100, 37 against 36):
  // the figure amid code is the one taken.
  const std::vector<uint8_t> dearer = probe_buffer(2, 38, 40, 43, 258, 269, 1033, 1190, 1073);
  const Expected<MarkerCost> amid = marker_cost_from_probe(dearer.data(), dearer.size());
  ASSERT_TRUE(amid) << amid.error;
  EXPECT_DOUBLE_EQ(amid->range_end, 37.25);
}

std::string hex(const std::vector<uint8_t> &bytes) {
  std::string out;
  for (uint8_t b : bytes) {
    static const char digits[] = "0123456789abcdef";
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

// A run of one launch of `k` (one row, a 1000-cycle `tile` range around one `mark`) on a GPU
// whose DEV section holds `device_extra`.
Run run_with_device(const std::string &device_extra) {
  Run run;
  run.run_json = R"({"format_version":2,"program":"p","pid":1,"host":"h","start_unix_ns":1})";
  run.devices = {R"({"index":0,"name":"GPU","clock_khz":2000000,"sms":1,"aligned":false)" +
                 device_extra + "}"};
  run.maps = {nlohmann::json::parse(R"({"format_version":1,"kernel":"k","source":"k.cu",
   "max_events":64,"clock":"clock64","groups":[{"index":0,"name":"block","lead":"0"}],
   "lanes":["main","inner"],
   "sites":[{"id":0,"kind":"range","name":"tile","lane":0,"group":0,"loc":"k.cu:1:1"},
            {"id":1,"kind":"range_start","name":"step","lane":1,"group":0,"loc":"k.cu:2:1"},
            {"id":2,"kind":"record","name":"mark","lane":0,"group":0,"loc":"k.cu:3:1"}],
   "flows":[]})")
                  .dump()};
  Buffer8Builder b(1, 1, 64);
  b.start(0, 0, 1'000'000, 10'000'000);
  b.event(0, 0, RecordKind::instant, 2, 0, 10'000'500);
  b.range(0, 0, 0, 0, 10'000'100, 10'001'100);
  b.end(0, 0, 1'010'000, 10'020'000);
  LaunchRecord l;
  l.buffer = b.bytes;
  l.block[0] = 32;
  run.launches = {l};
  return run;
}

uint64_t tile_length(const RunTrace &t) {
  const Slice &s = t.launches.at(0).trace.rows.at(0).slices.at(0);
  return s.end_cycles - s.begin_cycles;
}

TEST(MarkerCost, ARunTakesOutWhatItsGpuMeasuredUnlessAskedForRawTimes) {
  const cutrace::Run run =
      run_with_device(R"(,"marker_probe":")" + hex(probe_buffer(2, 50, 41, 43)) + R"(")");
  Expected<RunTrace> fixed = decode_run(run, "run.ctrace");
  ASSERT_TRUE(fixed) << fixed.error;
  ASSERT_TRUE(fixed->devices[0].marker_cost);
  EXPECT_TRUE(fixed->devices[0].marker_cost_taken_out);
  EXPECT_EQ(tile_length(*fixed), 1000u - 2 - 43); // its begin and the mark inside it
  const std::string summary = run_summary(*fixed);
  EXPECT_NE(summary.find("marker cost 2 cycles per range begin, 37 per range end, 43 per event "
                         "(measured at run start): taken out inside slices (--raw-times keeps "
                         "it)"),
            std::string::npos)
      << summary;
  const nlohmann::json j = nlohmann::json::parse(run_summary_json(*fixed));
  EXPECT_EQ(j["devices"][0]["marker_cost"]["range_end"], 37);
  EXPECT_EQ(j["devices"][0]["marker_cost"]["taken_out"], true);

  DecodeOptions raw_times;
  raw_times.run_marker_cost = false;
  Expected<RunTrace> raw = decode_run(run, "run.ctrace", raw_times);
  ASSERT_TRUE(raw) << raw.error;
  EXPECT_EQ(tile_length(*raw), 1000u);
  EXPECT_FALSE(raw->devices[0].marker_cost_taken_out);
  EXPECT_NE(run_summary(*raw).find("per event (measured at run start): times as recorded"),
            std::string::npos);
}

TEST(MarkerCost, ARunWithoutAProbeSaysWhyItsTimesAreAsRecorded) {
  for (const auto &[extra, why] : std::vector<std::pair<std::string, std::string>>{
           {"", "the run did not measure it"},
           {R"(,"marker_probe_problem":"the marker probe did not launch: no kernel image")",
            "the marker probe did not launch: no kernel image"},
           {R"(,"marker_probe":"zz")", "the marker probe's bytes are not hex"}}) {
    Expected<RunTrace> t = decode_run(run_with_device(extra), "run.ctrace");
    ASSERT_TRUE(t) << t.error;
    EXPECT_FALSE(t->devices[0].marker_cost);
    EXPECT_EQ(tile_length(*t), 1000u);
    EXPECT_NE(run_summary(*t).find("marker cost not known (" + why + "): times as recorded"),
              std::string::npos)
        << run_summary(*t);
  }
}


// A run recorded on an H100 (test/data/h100/marker/; bench/gpu/marker_cost.cu's routed launch of
// empty_ranges<<<4, 32>>>: thread 0 of each CTA records 64 ranges with nothing inside). Its DEV
// section holds the probe; the decoder takes its figures out, so each empty range reads 0 cycles,
// and 2 (one clock read after the other) as recorded.
// A run file recorded on an H100, whose probe gives these figures.
void expect_empty_ranges_read_nothing(const std::string &name, double range_end, double event) {
  const std::string file = std::string(CUTRACE_TEST_DATA) + "/h100/marker/" + name;
  Expected<cutrace::Run> raw = read_run_file(file);
  ASSERT_TRUE(raw) << raw.error;
  for (bool taken_out : {true, false}) {
    DecodeOptions options;
    options.run_marker_cost = taken_out;
    Expected<RunTrace> run = decode_run(*raw, file, options);
    ASSERT_TRUE(run) << run.error;
    ASSERT_EQ(run->devices.size(), 1u);
    const RunDevice &gpu = run->devices[0];
    ASSERT_TRUE(gpu.marker_cost) << gpu.marker_cost_problem;
    EXPECT_DOUBLE_EQ(gpu.marker_cost->range_begin, 2);
    EXPECT_DOUBLE_EQ(gpu.marker_cost->range_end, range_end);
    EXPECT_DOUBLE_EQ(gpu.marker_cost->event, event);
    EXPECT_EQ(gpu.marker_cost_taken_out, taken_out);
    ASSERT_EQ(run->launches.size(), 1u);
    const Trace &t = run->launches[0].trace;
    ASSERT_EQ(t.rows.size(), 4u);
    size_t ranges = 0;
    for (const Row &row : t.rows)
      for (const Slice &s : row.slices) {
        EXPECT_EQ(s.end_cycles - s.begin_cycles, taken_out ? 0u : 2u) << s.name;
        ++ranges;
      }
    EXPECT_EQ(ranges, 4u * 64);
    const std::string summary = format_summary(summarize(run->maps[run->launches[0].map], t));
    const std::string line = "marker cost 2 cycles per range begin, " +
                             std::to_string(std::llround(range_end)) + " per range end, " +
                             std::to_string(std::llround(event)) +
                             " per event (measured at run start): taken out inside slices";
    EXPECT_EQ(summary.find(line) != std::string::npos, taken_out) << summary;
  }
}

TEST(MarkerCost, AnH100RunsEmptyRangesReadNothingOnceItsCostIsTakenOut) {
  // Range ends and instants measured amid a chain of code that stores its result.
  expect_empty_ranges_read_nothing("marker_cost_run.ctrace", 37, 9.75);
}

TEST(MarkerCost, AProbeRecordedBeforeTheShapesAmidCodeGivesTheFiguresItHas) {
  // The range end after an empty range; the instant amid the FMA chain (36 alone).
  expect_empty_ranges_read_nothing("marker_cost_run_2026-12-06.ctrace", 36, 12);
}

} // namespace
} // namespace cutrace
