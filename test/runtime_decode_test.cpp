// Decode rules (docs/design.md, "Decode contract") and the buffer format of docs/FORMAT.md, on
// synthetic buffers built here exactly as the device recorder lays them out.
#include <cutrace/decode.h>

#include "support/buffer_builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

namespace cutrace {
namespace {

// Sites: 0 tile (range, lane mma, group producer), 1 epi (range_start, main, producer),
// 2 iter (record, mma, producer), 3 arrive (range, main, block), 4 wait (range, main, producer).
const char *kMapJson = R"({"format_version":1,"kernel":"gemm","source":"kernel.cu",
 "max_events":MAXEV,"clock":"CLOCK",
 "groups":[{"index":0,"name":"block","lead":"0"},{"index":1,"name":"producer","lead":"32"}],
 "lanes":["main","mma"],
 "sites":[{"id":0,"kind":"range","name":"tile","lane":1,"group":1,"loc":"kernel.cu:12:3"},
          {"id":1,"kind":"range_start","name":"epi","lane":0,"group":1,"loc":"kernel.cu:14:5"},
          {"id":2,"kind":"record","name":"iter","lane":1,"group":1,"loc":"kernel.cu:16:5"},
          {"id":3,"kind":"range","name":"arrive","lane":0,"group":0,"loc":"kernel.cu:20:5"},
          {"id":4,"kind":"range","name":"wait","lane":0,"group":1,"loc":"kernel.cu:22:5"}],
 "flows":[{"src":"arrive","dst":"wait"}]})";

DecodeMap test_map(uint32_t max_events, Clock clock = Clock::clock64) {
  std::string json = kMapJson;
  json.replace(json.find("MAXEV"), 5, std::to_string(max_events));
  json.replace(json.find("CLOCK"), 5, clock == Clock::clock64 ? "clock64" : "globaltimer");
  Expected<DecodeMap> map = parse_decode_map(json);
  EXPECT_TRUE(map) << map.error;
  return *map;
}

using test_support::BufferBuilder;
using test_support::put32;
using test_support::put64;

constexpr auto B = RecordKind::begin, E = RecordKind::end, I = RecordKind::instant;

Trace decode_bytes(const DecodeMap &map, const std::vector<uint8_t> &bytes,
                   const DecodeOptions &options = {}) {
  return decode(map, bytes.data(), bytes.size(), options);
}

std::string all_problems(const Trace &t) {
  std::string s;
  for (const std::string &p : t.problems)
    s += p + "\n";
  return s;
}

TEST(Decode, RangeBecomesSliceWithNameLaneAndPayload) {
  BufferBuilder b(1, 2, 16);
  b.start(0, 1, 1000, 10000);
  b.event(0, 1, B, 0, 7, 10100);
  b.event(0, 1, E, 0, 7, 10300);
  b.end(0, 1, 2000, 10400);
  Trace t = decode_bytes(test_map(16), b.bytes);
  ASSERT_TRUE(t.ok()) << all_problems(t);
  ASSERT_EQ(t.rows.size(), 2u);
  const Row &row = t.rows[1];
  EXPECT_TRUE(row.started);
  EXPECT_TRUE(row.closed);
  EXPECT_EQ(row.smid, 7u);
  EXPECT_EQ(row.cta, 0u);
  EXPECT_EQ(row.group, 1u);
  ASSERT_EQ(row.slices.size(), 1u);
  const Slice &s = row.slices[0];
  EXPECT_EQ(s.name, "tile");
  EXPECT_EQ(s.lane, 1u);
  EXPECT_EQ(s.payload, 7);
  EXPECT_EQ(s.begin_cycles, 0u); // the CTA's first event
  EXPECT_EQ(s.end_cycles, 200u);
  EXPECT_FALSE(s.incomplete);
  EXPECT_FALSE(t.rows[0].started); // group 0 never ran: no events, not an error
}

TEST(Decode, InstantKeepsPayloadAndTime) {
  BufferBuilder b(1, 2, 16);
  b.start(0, 1, 1000, 10000);
  b.event(0, 1, I, 2, -3, 10050);
  b.end(0, 1, 2000, 10400);
  Trace t = decode_bytes(test_map(16), b.bytes);
  ASSERT_EQ(t.rows[1].instants.size(), 1u);
  EXPECT_EQ(t.rows[1].instants[0].name, "iter");
  EXPECT_EQ(t.rows[1].instants[0].payload, -3);
  EXPECT_EQ(t.rows[1].instants[0].lane, 1u);
}

TEST(Decode, OverflowReportsDroppedCount) {
  BufferBuilder b(1, 2, 4);
  b.start(0, 1, 1000, 10000);
  for (int i = 0; i < 10; ++i)
    b.event(0, 1, I, 2, i, 10000 + 10 * i);
  b.end(0, 1, 2000, 10400);
  Trace t = decode_bytes(test_map(4), b.bytes);
  ASSERT_TRUE(t.ok()) << all_problems(t);
  const Row &row = t.rows[1];
  EXPECT_EQ(row.attempted, 10u);
  EXPECT_EQ(row.stored, 4u);
  EXPECT_EQ(row.dropped, 6u);
  ASSERT_EQ(row.instants.size(), 4u); // the first max_events are kept
  EXPECT_EQ(row.instants[3].payload, 3);
}

TEST(Decode, DroppedCountInconsistentWithAttemptedIsReported) {
  BufferBuilder b(1, 2, 4);
  b.start(0, 1, 1000, 10000);
  b.end(0, 1, 2000, 10400);
  put32(b.bytes, b.row_at(0, 1) + 36, 9); // attempted 9 of 4, but dropped still 0
  Trace t = decode_bytes(test_map(4), b.bytes);
  EXPECT_FALSE(t.ok());
  EXPECT_NE(all_problems(t).find("dropped"), std::string::npos);
}

TEST(Decode, OpenBeginBecomesIncompleteSlice) {
  BufferBuilder b(1, 2, 16);
  b.start(0, 1, 1000, 10000);
  b.event(0, 1, B, 0, 1, 10100);
  b.event(0, 1, I, 2, 0, 10150);
  b.end(0, 1, 2000, 10500);
  Trace t = decode_bytes(test_map(16), b.bytes);
  ASSERT_EQ(t.rows[1].slices.size(), 1u);
  const Slice &s = t.rows[1].slices[0];
  EXPECT_TRUE(s.incomplete);
  EXPECT_EQ(s.end_cycles, 400u); // the row's end, relative to the first event at 10100
}

TEST(Decode, OpenBeginInTrappedRowEndsAtLastRecord) {
  BufferBuilder b(1, 2, 16);
  b.start(0, 1, 1000, 10000);
  b.event(0, 1, B, 0, 1, 10100);
  b.event(0, 1, I, 2, 0, 10150); // then the kernel died: no end header
  Trace t = decode_bytes(test_map(16), b.bytes);
  const Row &row = t.rows[1];
  EXPECT_FALSE(row.closed);
  EXPECT_EQ(row.stored, 2u);
  ASSERT_EQ(row.slices.size(), 1u);
  EXPECT_TRUE(row.slices[0].incomplete);
  EXPECT_EQ(row.slices[0].end_cycles, 50u);
}

TEST(Decode, UnmatchedEndIsCounted) {
  BufferBuilder b(1, 2, 16);
  b.start(0, 1, 1000, 10000);
  b.event(0, 1, E, 0, 0, 10100); // tile END with nothing open
  b.event(0, 1, B, 4, 0, 10200); // wait BEGIN (lane main)
  b.event(0, 1, E, 1, 0, 10300); // epi END: same lane, other site -> unmatched, wait stays open
  b.event(0, 1, E, 4, 0, 10400); // wait END
  b.end(0, 1, 2000, 10500);
  Trace t = decode_bytes(test_map(16), b.bytes);
  const Row &row = t.rows[1];
  EXPECT_EQ(row.unmatched_ends, 2u);
  ASSERT_EQ(row.slices.size(), 1u);
  EXPECT_EQ(row.slices[0].name, "wait");
  EXPECT_FALSE(row.slices[0].incomplete);
}

TEST(Decode, BeginEndMatchedPerLane) {
  BufferBuilder b(1, 2, 16);
  b.start(0, 1, 1000, 10000);
  b.event(0, 1, B, 0, 0, 10100); // tile (mma)
  b.event(0, 1, B, 1, 0, 10200); // epi (main)
  b.event(0, 1, E, 0, 0, 10300); // tile closes although epi, on another lane, is still open
  b.event(0, 1, E, 1, 0, 10400);
  b.end(0, 1, 2000, 10500);
  Trace t = decode_bytes(test_map(16), b.bytes);
  const Row &row = t.rows[1];
  EXPECT_EQ(row.unmatched_ends, 0u);
  ASSERT_EQ(row.slices.size(), 2u);
  EXPECT_EQ(row.slices[0].name, "tile");
  EXPECT_EQ(row.slices[0].end_cycles, 200u);
  EXPECT_EQ(row.slices[1].name, "epi");
  EXPECT_EQ(row.slices[1].end_cycles, 300u);
}

TEST(Decode, NestedSameSiteMatchesInnermost) {
  BufferBuilder b(1, 2, 16);
  b.start(0, 1, 1000, 10000);
  b.event(0, 1, B, 0, 1, 10100);
  b.event(0, 1, B, 0, 2, 10200);
  b.event(0, 1, E, 0, 2, 10300);
  b.event(0, 1, E, 0, 1, 10400);
  b.end(0, 1, 2000, 10500);
  Trace t = decode_bytes(test_map(16), b.bytes);
  ASSERT_EQ(t.rows[1].slices.size(), 2u);
  EXPECT_EQ(t.rows[1].slices[0].payload, 1);
  EXPECT_EQ(t.rows[1].slices[0].end_cycles, 300u);
  EXPECT_EQ(t.rows[1].slices[1].payload, 2);
  EXPECT_EQ(t.rows[1].slices[1].end_cycles, 200u);
}

TEST(Decode, StopsAtFirstUnwrittenRecord) {
  BufferBuilder b(1, 2, 8);
  b.start(0, 1, 1000, 10000);
  b.event(0, 1, I, 2, 0, 10100);
  b.event(0, 1, I, 2, 1, 10200);
  // A stray record after a hole is not read: records are written contiguously.
  const size_t at = b.row_at(0, 1) + kRowHeaderBytes + 3 * kLegacyRecordBytes;
  put32(b.bytes, at, uint32_t(I) << kRecordKindShift | 2);
  Trace t = decode_bytes(test_map(8), b.bytes);
  EXPECT_EQ(t.rows[1].stored, 2u);
  EXPECT_EQ(t.rows[1].instants.size(), 2u);
}

TEST(Decode, InvalidHeadWordIsCountedNotDecoded) {
  BufferBuilder b(1, 2, 8);
  b.start(0, 1, 1000, 10000);
  b.event(0, 1, I, 2, 0, 10100);
  put32(b.bytes, b.row_at(0, 1) + kRowHeaderBytes, (uint32_t(I) << kRecordKindShift) | (1u << 20));
  Trace t = decode_bytes(test_map(8), b.bytes);
  EXPECT_EQ(t.rows[1].invalid_records, 1u);
  EXPECT_TRUE(t.rows[1].instants.empty());
  EXPECT_FALSE(t.ok());
}

TEST(Decode, UnknownSiteIsCountedAndNamedById) {
  BufferBuilder b(1, 2, 8);
  b.start(0, 1, 1000, 10000);
  b.event(0, 1, I, 99, 0, 10100);
  b.end(0, 1, 2000, 10500);
  Trace t = decode_bytes(test_map(8), b.bytes);
  EXPECT_EQ(t.rows[1].unknown_sites, 1u);
  ASSERT_EQ(t.rows[1].instants.size(), 1u);
  EXPECT_EQ(t.rows[1].instants[0].name, "site#99");
}

TEST(Decode, TruncatedBufferIsReportedNotRead) {
  BufferBuilder b(4, 2, 8);
  for (uint32_t cta = 0; cta < 4; ++cta) {
    b.start(cta, 0, 1000, 10000);
    b.event(cta, 0, I, 2, int32_t(cta), 10100);
    b.end(cta, 0, 2000, 10500);
  }
  const size_t stride = kRowHeaderBytes + 8 * kLegacyRecordBytes;
  // An exactly sized copy, so a sanitizer build catches any read past the end.
  std::vector<uint8_t> cut(b.bytes.begin(), b.bytes.begin() + kBufferHeaderBytes + 5 * stride / 2);
  Trace t = decode_bytes(test_map(8), cut);
  EXPECT_EQ(t.rows.size(), 2u);
  EXPECT_NE(all_problems(t).find("truncated"), std::string::npos);
  EXPECT_EQ(t.rows[0].instants.size(), 1u);
}

TEST(Decode, BufferShorterThanHeaderIsRejected) {
  std::vector<uint8_t> tiny(10, 0);
  Trace t = decode_bytes(test_map(8), tiny);
  EXPECT_TRUE(t.rows.empty());
  EXPECT_FALSE(t.ok());
}

TEST(Decode, BadMagicIsRejected) {
  BufferBuilder b(1, 2, 8);
  b.bytes[0] ^= 0xFF;
  Trace t = decode_bytes(test_map(8), b.bytes);
  EXPECT_TRUE(t.rows.empty());
  EXPECT_NE(all_problems(t).find("magic"), std::string::npos);
}

TEST(Decode, UnsupportedVersionIsRejected) {
  BufferBuilder b(1, 2, 8);
  put32(b.bytes, 4, kRecordFormatVersion + 1);
  Trace t = decode_bytes(test_map(8), b.bytes);
  EXPECT_TRUE(t.rows.empty());
  EXPECT_NE(all_problems(t).find("buffer format version 4 is not supported"), std::string::npos)
      << all_problems(t);
}

// Word 14 is the layout from version 2 on: 0 full, 1 compact, anything else unknown.
TEST(Decode, UnknownLayoutIsRejected) {
  BufferBuilder b(1, 2, 8);
  put32(b.bytes, 4, kCompactFormatVersion);
  put32(b.bytes, 56, 7);
  Trace t = decode_bytes(test_map(8), b.bytes);
  EXPECT_TRUE(t.rows.empty());
  EXPECT_NE(all_problems(t).find("unknown buffer layout 7"), std::string::npos) << all_problems(t);
}

TEST(Decode, InconsistentHeaderSizesAreRejected) {
  BufferBuilder b(1, 2, 8);
  put32(b.bytes, 44, 12345); // row stride
  EXPECT_TRUE(decode_bytes(test_map(8), b.bytes).rows.empty());
  BufferBuilder c(1, 2, 8);
  put32(c.bytes, 48, 1000); // num_rows
  EXPECT_TRUE(decode_bytes(test_map(8), c.bytes).rows.empty());
}

TEST(Decode, MapDisagreeingWithHeaderIsReported) {
  BufferBuilder b(1, 2, 8);
  Trace t = decode_bytes(test_map(16), b.bytes);
  EXPECT_NE(all_problems(t).find("max_events"), std::string::npos);
  EXPECT_EQ(t.rows.size(), 2u); // the header governs the layout
}

TEST(Decode, RowHeaderNamingAnotherRowIsReported) {
  BufferBuilder b(2, 2, 8);
  b.start(1, 0, 1000, 10000);
  put32(b.bytes, b.row_at(1, 0) + 24, 0); // claims CTA 0: rows overlap
  Trace t = decode_bytes(test_map(8), b.bytes);
  EXPECT_NE(all_problems(t).find("belongs to CTA 1"), std::string::npos);
}

TEST(Decode, GlobalViewUsesMeasuredClockRate) {
  BufferBuilder b(1, 2, 8);
  b.start(0, 1, 1'000'000, 10'000'000);
  b.event(0, 1, B, 0, 0, 10'002'000);
  b.event(0, 1, E, 0, 0, 10'004'000);
  b.end(0, 1, 1'010'000, 10'020'000); // 20000 cycles in 10000 ns: 2 GHz
  DecodeOptions options;
  options.default_ghz = 1.0;
  Trace t = decode_bytes(test_map(8), b.bytes, options);
  const Row &row = t.rows[1];
  EXPECT_TRUE(row.ghz_measured);
  EXPECT_DOUBLE_EQ(row.ghz, 2.0);
  ASSERT_EQ(row.slices.size(), 1u);
  EXPECT_EQ(t.origin_ns, 1'000'000u); // the earliest row start; global ns count from it
  EXPECT_DOUBLE_EQ(row.slices[0].begin_ns, 1'000.0);
  EXPECT_DOUBLE_EQ(row.slices[0].end_ns, 2'000.0);
}

TEST(Decode, RowsOfOneCtaShareOneClockRateAndLine) {
  // Two rows of one CTA on SM 0. Row 1's start was stamped one globaltimer tick (32 ns) late
  // and its own pairs give another rate; row 1's instant runs 12 cycles before row 0's.
  BufferBuilder b(1, 2, 8);
  b.start(0, 0, 1'000'000, 10'000'000);
  b.event(0, 0, I, 2, 0, 10'005'012);
  b.end(0, 0, 1'010'000, 10'020'000);
  b.start(0, 1, 1'000'032, 10'000'000);
  b.event(0, 1, I, 2, 0, 10'005'000);
  b.end(0, 1, 1'004'000, 10'008'400);
  Trace t = decode_bytes(test_map(8), b.bytes);
  const Row &r0 = t.rows[0], &r1 = t.rows[1];
  EXPECT_EQ(r0.ghz_source, RateSource::measured);
  EXPECT_EQ(r1.ghz_source, RateSource::measured);
  EXPECT_DOUBLE_EQ(r0.ghz, r1.ghz); // the CTA's earliest and latest pairs: one rate
  ASSERT_EQ(r0.instants.size(), 1u);
  ASSERT_EQ(r1.instants.size(), 1u);
  // Cycle order holds in the global view too, 12 cycles apart at the CTA's rate.
  EXPECT_LT(r1.instants[0].ns, r0.instants[0].ns);
  EXPECT_NEAR(r0.instants[0].ns - r1.instants[0].ns, 12 / r0.ghz, 1e-6);
  EXPECT_EQ(r0.instants[0].cycles - r1.instants[0].cycles, 12u);
}

TEST(Decode, RowsNamingDifferentSmsInOneCtaKeepTheirOwnRates) {
  // A corrupt header: one CTA's rows on two SMs share no clock, so each keeps its own.
  BufferBuilder b(1, 2, 8);
  b.start(0, 0, 1'000'000, 10'000'000, 0);
  b.end(0, 0, 1'010'000, 10'020'000);        // 2 GHz
  b.start(0, 1, 1'000'000, 50'000'000, 5);
  b.end(0, 1, 1'010'000, 50'015'000);        // 1.5 GHz
  Trace t = decode_bytes(test_map(8), b.bytes);
  EXPECT_DOUBLE_EQ(t.rows[0].ghz, 2.0);
  EXPECT_DOUBLE_EQ(t.rows[1].ghz, 1.5);
}

TEST(Decode, TooShortRowFallsBackToMedianOfMeasuredRates) {
  BufferBuilder b(2, 2, 8);
  b.start(0, 1, 1'000'000, 10'000'000);
  b.end(0, 1, 1'010'000, 10'015'000);               // 1.5 GHz, measurable
  b.start(1, 1, 1'000'000, 50'000'000, /*smid=*/8); // another SM: nothing to pool with
  b.event(1, 1, I, 2, 0, 50'000'300);
  b.end(1, 1, 1'000'100, 50'000'500); // 100 ns: too short to measure
  Trace t = decode_bytes(test_map(8), b.bytes);
  EXPECT_TRUE(t.rows[1].ghz_measured);
  EXPECT_FALSE(t.rows[3].ghz_measured);
  EXPECT_EQ(t.rows[3].ghz_source, RateSource::launch_median);
  EXPECT_DOUBLE_EQ(t.rows[3].ghz, 1.5);
  EXPECT_DOUBLE_EQ(t.rows[3].instants[0].ns, 200.0);
}

TEST(Decode, ShortRowsOnOneSmPoolTheirPairs) {
  // Two short CTAs one after the other on SM 3: each spans 1 us, together 4 us at 2 GHz.
  BufferBuilder b(3, 2, 8);
  b.start(0, 0, 1'000'000, 10'000'000, 3);
  b.end(0, 0, 1'001'000, 10'002'000);
  b.start(1, 0, 1'003'000, 10'006'000, 3);
  b.end(1, 0, 1'004'000, 10'008'000);
  b.start(2, 0, 1'000'000, 90'000'000, 4); // alone on SM 4
  b.end(2, 0, 1'001'000, 90'002'000);
  DecodeOptions options;
  options.default_ghz = 1.0;
  Trace t = decode_bytes(test_map(8), b.bytes, options);
  EXPECT_EQ(t.rows[0].ghz_source, RateSource::sm_pooled);
  EXPECT_EQ(t.rows[2].ghz_source, RateSource::sm_pooled);
  EXPECT_DOUBLE_EQ(t.rows[0].ghz, 2.0);
  EXPECT_EQ(t.rows[4].ghz_source, RateSource::default_rate);
  EXPECT_DOUBLE_EQ(t.rows[4].ghz, 1.0);
}

TEST(Decode, UnmeasurableRowsUseTheDeviceClockFromTheHeaderBeforeTheDefault) {
  BufferBuilder b(1, 2, 8);
  put32(b.bytes, 4 * 13, 1'980'000); // header word 13: device clock in kHz
  b.start(0, 0, 1'000'000, 10'000'000);
  b.end(0, 0, 1'000'500, 10'001'000);
  Trace t = decode_bytes(test_map(8), b.bytes);
  EXPECT_EQ(t.header.device_clock_khz, 1'980'000u);
  EXPECT_EQ(t.rows[0].ghz_source, RateSource::device_attribute);
  EXPECT_DOUBLE_EQ(t.rows[0].ghz, 1.98);
  put32(b.bytes, 4 * 13, 0); // 0 = unknown (buffers from before the word was used)
  Trace old = decode_bytes(test_map(8), b.bytes);
  EXPECT_EQ(old.rows[0].ghz_source, RateSource::default_rate);
  EXPECT_DOUBLE_EQ(old.rows[0].ghz, DecodeOptions{}.default_ghz);
}

TEST(Decode, ManyShortRowsOnDistinctSmsPoolIntoOneLaunchRate) {
  BufferBuilder b(30, 2, 8);
  for (uint32_t c = 0; c < 30; ++c) { // 30 x 800 ns at 2 GHz, each on its own SM
    b.start(c, 0, 1'000'000 + 32 * c, 5'000'000ull * c, c);
    b.end(c, 0, 1'000'800 + 32 * c, 5'000'000ull * c + 1600);
  }
  Trace t = decode_bytes(test_map(8), b.bytes);
  for (const Row &r : t.rows) {
    if (!r.started)
      continue;
    EXPECT_EQ(r.ghz_source, RateSource::launch_pooled);
    EXPECT_DOUBLE_EQ(r.ghz, 2.0);
  }
}

TEST(Decode, GlobalNanosecondsKeepPrecisionNearTheEpoch) {
  // %globaltimer on an H200 is ns since 1970 (~1.8e18): a double alone would round to 256 ns.
  const uint64_t epoch = 1'795'000'000'000'000'123ull;
  BufferBuilder b(1, 2, 8);
  b.start(0, 0, epoch, 10'000'000);
  b.event(0, 0, B, 0, 0, 10'000'002); // 1 ns at 2 GHz
  b.event(0, 0, E, 0, 0, 10'000'008); // 3 ns long
  b.end(0, 0, epoch + 10'000, 10'020'000);
  Trace t = decode_bytes(test_map(8), b.bytes);
  EXPECT_EQ(t.origin_ns, epoch);
  ASSERT_EQ(t.rows[0].slices.size(), 1u);
  EXPECT_DOUBLE_EQ(t.rows[0].slices[0].begin_ns, 1.0);
  EXPECT_DOUBLE_EQ(t.rows[0].slices[0].end_ns - t.rows[0].slices[0].begin_ns, 3.0);
}

TEST(Decode, RateOverrideReplacesMeasurement) {
  BufferBuilder b(1, 2, 8);
  b.start(0, 1, 1'000'000, 10'000'000);
  b.end(0, 1, 1'010'000, 10'020'000);
  DecodeOptions options;
  options.ghz_override = 1.25;
  Trace t = decode_bytes(test_map(8), b.bytes, options);
  EXPECT_FALSE(t.rows[1].ghz_measured);
  EXPECT_EQ(t.rows[1].ghz_source, RateSource::override_rate);
  EXPECT_DOUBLE_EQ(t.rows[1].ghz, 1.25);
}

TEST(Decode, GlobaltimerClockRecordsAreNanoseconds) {
  BufferBuilder b(1, 2, 8, Clock::globaltimer);
  b.start(0, 1, 1'000'000, 10'000'000);
  b.event(0, 1, B, 0, 0, 1'001'000);
  b.event(0, 1, E, 0, 0, 1'002'000);
  b.end(0, 1, 1'010'000, 10'020'000); // 2 GHz
  Trace t = decode_bytes(test_map(8, Clock::globaltimer), b.bytes);
  ASSERT_TRUE(t.ok()) << all_problems(t);
  const Slice &s = t.rows[1].slices[0];
  EXPECT_DOUBLE_EQ(s.begin_ns, 1'000.0); // since the origin, the row's start at 1'000'000
  EXPECT_EQ(s.end_cycles - s.begin_cycles, 2000u);
}

TEST(Decode, PerCtaViewCountsCyclesFromTheCtasFirstEvent) {
  BufferBuilder b(2, 2, 8);
  b.start(0, 0, 1000, 5000);
  b.event(0, 0, I, 2, 0, 5100);
  b.start(0, 1, 1000, 4900);
  b.event(0, 1, I, 2, 0, 5000); // the CTA's first event
  b.start(1, 0, 1000, 90000);
  b.event(1, 0, I, 2, 0, 90500); // another CTA: its own origin
  Trace t = decode_bytes(test_map(8), b.bytes);
  EXPECT_EQ(t.rows[0].instants[0].cycles, 100u);
  EXPECT_EQ(t.rows[1].instants[0].cycles, 0u);
  EXPECT_EQ(t.rows[2].instants[0].cycles, 0u);
}

TEST(Decode, FlowsPairIthSourceWithIthDestinationPerCta) {
  BufferBuilder b(1, 2, 16);
  b.start(0, 0, 1000, 10000);
  b.start(0, 1, 1000, 10000);
  for (int i = 0; i < 3; ++i) {
    b.event(0, 0, B, 3, i, 10000 + 1000 * i); // arrive i: [1000i, 1000i+100]
    b.event(0, 0, E, 3, i, 10100 + 1000 * i);
    b.event(0, 1, B, 4, i, 10200 + 1000 * i); // wait i: [1000i+200, 1000i+300]
    b.event(0, 1, E, 4, i, 10300 + 1000 * i);
  }
  Trace t = decode_bytes(test_map(16), b.bytes);
  ASSERT_EQ(t.flows.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const Slice &src = t.rows[t.flows[i].src.row].slices[t.flows[i].src.slice];
    const Slice &dst = t.rows[t.flows[i].dst.row].slices[t.flows[i].dst.slice];
    EXPECT_EQ(src.name, "arrive");
    EXPECT_EQ(dst.name, "wait");
    EXPECT_EQ(src.payload, i);
    EXPECT_EQ(dst.payload, i);
  }
  EXPECT_EQ(t.backward_flows, 0u);
}

TEST(Decode, FlowsNeverPointBackwards) {
  BufferBuilder b(2, 2, 16);
  for (uint32_t cta = 0; cta < 2; ++cta) {
    b.start(cta, 0, 1000, 10000);
    b.start(cta, 1, 1000, 10000);
  }
  b.event(0, 0, B, 3, 0, 10000); // CTA 0: arrive [0,100], wait [200,300]: forward
  b.event(0, 0, E, 3, 0, 10100);
  b.event(0, 1, B, 4, 0, 10200);
  b.event(0, 1, E, 4, 0, 10300);
  b.event(1, 0, B, 3, 0, 10000); // CTA 1: wait ends (300) before arrive ends (400): skipped
  b.event(1, 0, E, 3, 0, 10400);
  b.event(1, 1, B, 4, 0, 10200);
  b.event(1, 1, E, 4, 0, 10300);
  Trace t = decode_bytes(test_map(16), b.bytes);
  ASSERT_EQ(t.flows.size(), 1u);
  EXPECT_EQ(t.rows[t.flows[0].src.row].cta, 0u);
  EXPECT_EQ(t.flows[0].at_cycles, 200u); // dst began after src ended: lands on dst's start
  EXPECT_EQ(t.backward_flows, 1u);
  for (const Flow &f : t.flows) { // the property itself: from src's end, into dst, not back
    const Slice &src = t.rows[f.src.row].slices[f.src.slice];
    const Slice &dst = t.rows[f.dst.row].slices[f.dst.slice];
    EXPECT_LE(src.end_cycles, f.at_cycles);
    EXPECT_LE(dst.begin_cycles, f.at_cycles);
    EXPECT_LE(f.at_cycles, dst.end_cycles);
  }
}

TEST(Decode, FlowIntoAWaitingSliceLandsWhereTheSourceEnds) {
  // The consumer's range begins (and waits) before the producer's ends: a real pipeline.
  BufferBuilder b(1, 2, 16);
  b.start(0, 0, 1000, 10000);
  b.start(0, 1, 1000, 10000);
  b.event(0, 0, B, 3, 0, 10000); // arrive [0, 400]
  b.event(0, 0, E, 3, 0, 10400);
  b.event(0, 1, B, 4, 0, 10100); // wait [100, 500]
  b.event(0, 1, E, 4, 0, 10500);
  b.end(0, 0, 1300, 10600);
  b.end(0, 1, 1300, 10600);
  Trace t = decode_bytes(test_map(16), b.bytes);
  ASSERT_EQ(t.flows.size(), 1u);
  EXPECT_EQ(t.backward_flows, 0u);
  const Flow &f = t.flows[0];
  const Slice &src = t.rows[f.src.row].slices[f.src.slice];
  const Slice &dst = t.rows[f.dst.row].slices[f.dst.slice];
  EXPECT_EQ(f.at_cycles, src.end_cycles); // a vertical arrow
  EXPECT_DOUBLE_EQ(f.at_ns, src.end_ns);
  EXPECT_GE(f.at_ns, dst.begin_ns);
  EXPECT_LE(f.at_ns, dst.end_ns);
}

TEST(Decode, FlowsDoNotCrossCtas) {
  BufferBuilder b(2, 2, 16);
  b.start(0, 0, 1000, 10000);
  b.event(0, 0, B, 3, 0, 10000);
  b.event(0, 0, E, 3, 0, 10100);
  b.start(1, 1, 1000, 10000);
  b.event(1, 1, B, 4, 0, 10200);
  b.event(1, 1, E, 4, 0, 10300);
  Trace t = decode_bytes(test_map(16), b.bytes);
  EXPECT_TRUE(t.flows.empty());
  EXPECT_EQ(t.unpaired_flows, 2u);
}

// Property: no mutation or truncation of a valid buffer makes the decoder crash or read out of
// bounds (run the suite with -fsanitize=address to check the latter).
TEST(Decode, CorruptBuffersNeverCrash) {
  BufferBuilder b(3, 2, 8);
  for (uint32_t cta = 0; cta < 3; ++cta)
    for (uint32_t g = 0; g < 2; ++g) {
      b.start(cta, g, 1000, 10000);
      for (int i = 0; i < 12; ++i)
        b.event(cta, g, i % 3 == 2 ? I : (i % 3 == 0 ? B : E), uint32_t(i % 5), i, 10000 + i);
      b.end(cta, g, 9000, 30000);
    }
  const DecodeMap map = test_map(8);
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<uint8_t> bytes = b.bytes;
    const int flips = 1 + int(rng() % 8);
    for (int f = 0; f < flips; ++f)
      bytes[rng() % bytes.size()] = uint8_t(rng());
    if (trial % 3 == 0)
      bytes.resize(rng() % (bytes.size() + 1));
    std::vector<uint8_t> exact(bytes); // exactly sized heap block
    Trace t = decode(map, exact.data(), exact.size());
    EXPECT_LE(t.rows.size(), 6u);
  }
}

TEST(DecodeMap, ParsesTheDocumentedSchema) {
  const DecodeMap map = test_map(1024);
  EXPECT_EQ(map.kernel, "gemm");
  EXPECT_EQ(map.max_events, 1024u);
  ASSERT_EQ(map.groups.size(), 2u);
  EXPECT_EQ(map.groups[1].name, "producer");
  EXPECT_EQ(map.groups[1].lead, "32");
  ASSERT_NE(map.site(1), nullptr);
  EXPECT_EQ(map.site(1)->kind, SiteKind::range_start);
  EXPECT_EQ(map.site(1)->loc, "kernel.cu:14:5");
  EXPECT_EQ(map.site(42), nullptr);
  ASSERT_EQ(map.flows.size(), 1u);
  EXPECT_EQ(map.flows[0].src, "arrive");
}

TEST(DecodeMap, InvalidJsonIsAnError) {
  EXPECT_FALSE(parse_decode_map("{\"format_version\":1,"));
  EXPECT_FALSE(parse_decode_map("{\"format_version\":1}")); // required fields missing
  EXPECT_FALSE(parse_decode_map("[]"));
}

TEST(DecodeMap, UnsupportedVersionIsAnError) {
  std::string json = kMapJson;
  json.replace(json.find("MAXEV"), 5, "8");
  json.replace(json.find("CLOCK"), 5, "clock64");
  json.replace(json.find("\"format_version\":1"), 18, "\"format_version\":2");
  Expected<DecodeMap> map = parse_decode_map(json);
  EXPECT_FALSE(map);
  EXPECT_NE(map.error.find("format_version"), std::string::npos);
}

TEST(DecodeMap, SiteLaneOutOfRangeIsAnError) {
  const char *json = R"({"format_version":1,"kernel":"k","max_events":8,"clock":"clock64",
    "groups":[{"index":0,"name":"block","lead":"0"}],"lanes":["main"],
    "sites":[{"id":0,"kind":"record","name":"x","lane":3,"group":0,"loc":"a.cu:1:1"}],
    "flows":[]})";
  EXPECT_FALSE(parse_decode_map(json));
}

} // namespace
} // namespace cutrace
