// Rows sized at launch (docs/FORMAT.md, "Row capacity"): a launch's header may give its rows more
// slots than the decode map's max_events, and the decoder takes the header's figure.
#include <cutrace/completeness.h>
#include <cutrace/decode.h>
#include <cutrace/run.h>

#include "support/buffer_builder.h"

#include <gtest/gtest.h>

#include <cstring>

namespace cutrace {
namespace {

using test_support::Buffer8Builder;

// One group, one scoped-range site; the build's max_events is 64.
DecodeMap map_of_64() {
  Expected<DecodeMap> map = parse_decode_map(
      R"({"format_version":1,"kernel":"k","source":"k.cu","max_events":64,"clock":"clock64",
          "groups":[{"index":0,"name":"block","lead":"0"}],"lanes":["main"],
          "sites":[{"id":0,"kind":"range","name":"tile","lane":0,"group":0,"loc":"k.cu:1:1"}],
          "flows":[]})");
  EXPECT_TRUE(map) << map.error;
  return *map;
}

// `ranges` wide RANGEs (2 slots each) in one row of a buffer whose rows hold `capacity` slots.
Buffer8Builder row_of_ranges(uint32_t capacity, uint32_t ranges) {
  Buffer8Builder b(1, 1, capacity);
  b.start(0, 0, 1'000'000, 10'000'000);
  for (uint32_t i = 0; i < ranges; ++i)
    b.range(0, 0, 0, int32_t(i), 10'000'100 + 10 * i, 10'000'105 + 10 * i);
  b.end(0, 0, 1'010'000, 10'020'000);
  return b;
}

TEST(RowCapacity, ALaunchWhoseRowsHoldMoreThanTheBuildSaysDecodesEveryRecord) {
  // 80 ranges, 160 slots: past the map's 64, within the launch's 200.
  const Buffer8Builder b = row_of_ranges(200, 80);
  const Trace t = decode(map_of_64(), b.bytes.data(), b.bytes.size());
  ASSERT_TRUE(t.ok()) << (t.problems.empty() ? "" : t.problems[0]);
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows[0].slices.size(), 80u);
  EXPECT_EQ(t.rows[0].dropped, 0u);
  EXPECT_EQ(t.header.max_events, 200u);
}

TEST(RowCapacity, AHeaderBelowTheMapsCapacityIsReported) {
  const Buffer8Builder b = row_of_ranges(32, 10);
  const Trace t = decode(map_of_64(), b.bytes.data(), b.bytes.size());
  ASSERT_FALSE(t.problems.empty());
  EXPECT_NE(t.problems[0].find("decode map says max_events 64, buffer header says only 32"),
            std::string::npos)
      << t.problems[0];
}

TEST(RowCapacity, ALaunchThatStillOverflowsCountsWhatItsOwnCapacityDropped) {
  // 80 ranges into a launch of 100 slots: 50 ranges kept, 60 slots dropped.
  const Buffer8Builder b = row_of_ranges(100, 80);
  const Trace t = decode(map_of_64(), b.bytes.data(), b.bytes.size());
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows[0].slices.size(), 50u);
  EXPECT_EQ(t.rows[0].dropped, 60u);
}

uint32_t word15(const uint8_t *header) {
  uint32_t w = 0;
  std::memcpy(&w, header + 4 * 15, sizeof w);
  return w;
}

// The same overflowing row, its header saying the host sized it at launch (word 15, bit 1).
Buffer8Builder sized_row_of_ranges(uint32_t capacity, uint32_t ranges) {
  Buffer8Builder b = row_of_ranges(capacity, ranges);
  test_support::put32(b.bytes, 4 * 15, kRowsSizedAtLaunchFlag);
  return b;
}

TEST(RowCapacity, RowsTheBuildSizedNameTheRebuildThatKeepsTheirEvents) {
  const Buffer8Builder b = row_of_ranges(100, 80);
  const Completeness c = completeness_of(decode(map_of_64(), b.bytes.data(), b.bytes.size()));
  EXPECT_EQ(completeness_line(c),
            "INCOMPLETE: 60 events dropped (row full) on 1 row (to keep them, rebuild with "
            "--max-events 160 or more: cutrace_instrument(... MAX_EVENTS 160), cutrace-nvcc "
            "--cutrace-max-events=160)");
}

TEST(RowCapacity, RowsSizedAtLaunchNameTheBudgetsNotARebuild) {
  const Buffer8Builder b = sized_row_of_ranges(100, 80);
  const Trace t = decode(map_of_64(), b.bytes.data(), b.bytes.size());
  ASSERT_TRUE(t.header.rows_sized_at_launch);
  const Completeness c = completeness_of(t);
  EXPECT_EQ(completeness_line(c),
            "INCOMPLETE: 60 events dropped (row full) on 1 row (a row attempted 160 slots; its "
            "rows were sized at launch: to keep them, raise CUTRACE_LAUNCH_MB, the budget a "
            "kernel's first launch sizes its rows from, or CUTRACE_POOL_MB, the most a launch "
            "holds)");
  // A run read from its row headers alone says the same.
  const BufferGaps gaps = buffer_gaps(b.bytes.data(), b.bytes.size());
  EXPECT_TRUE(gaps.rows_sized_at_launch);
  // Launches of both kinds summed (a run): each fix is named.
  Completeness both = completeness_of(decode(map_of_64(), row_of_ranges(100, 80).bytes.data(),
                                             row_of_ranges(100, 80).bytes.size()));
  both.add(c);
  EXPECT_NE(completeness_line(both).find("cutrace-nvcc --cutrace-max-events=160; where rows were "
                                         "sized at launch, raise CUTRACE_LAUNCH_MB"),
            std::string::npos)
      << completeness_line(both);
}

TEST(RowCapacity, TheSizedAtLaunchBitRoundTripsAndLeavesTheRestOfWord15Alone) {
  Buffer8Builder b(10, 2, 64);
  b.keep_one_cta_in(4);
  BufferHeader h = *parse_buffer_header(b.bytes.data(), b.bytes.size());
  EXPECT_FALSE(h.rows_sized_at_launch);
  h.rows_sized_at_launch = true;
  uint8_t out[kBufferHeaderBytes];
  encode_buffer_header(h, out);
  EXPECT_EQ(word15(out), 4u << kCtaStrideShift | kRowsSizedAtLaunchFlag);
  const Expected<BufferHeader> back = parse_buffer_header(out, sizeof out);
  ASSERT_TRUE(back) << back.error;
  EXPECT_TRUE(back->rows_sized_at_launch);
  EXPECT_EQ(back->cta_stride, 4u);
  // A header without it writes word 15 as before: the stride alone.
  h.rows_sized_at_launch = false;
  encode_buffer_header(h, out);
  EXPECT_EQ(word15(out), 4u << kCtaStrideShift);
}

// 10 CTAs of 2 groups, 1 CTA in 4 recorded (CTAs 0, 4 and 8): each kept CTA's rows hold
// `ranges` ranges on group 0 and one on group 1.
Buffer8Builder one_cta_in_four(uint32_t ranges) {
  Buffer8Builder b(10, 2, 64);
  b.keep_one_cta_in(4);
  for (uint32_t cta = 0; cta < 10; cta += 4)
    for (uint32_t g = 0; g < 2; ++g) {
      b.start(cta, g, 1'000'000 + cta, 10'000'000);
      for (uint32_t i = 0; i < (g == 0 ? ranges : 1); ++i)
        b.range(cta, g, 0, int32_t(cta * 100 + i), 10'000'100 + 10 * i, 10'000'105 + 10 * i);
      b.end(cta, g, 1'010'000, 10'020'000);
    }
  return b;
}

DecodeMap map_of_two_groups() {
  Expected<DecodeMap> map = parse_decode_map(
      R"({"format_version":1,"kernel":"k","source":"k.cu","max_events":64,"clock":"clock64",
          "groups":[{"index":0,"name":"a","lead":"0"},{"index":1,"name":"b","lead":"32"}],
          "lanes":["main"],
          "sites":[{"id":0,"kind":"range","name":"tile","lane":0,"group":0,"loc":"k.cu:1:1"}],
          "flows":[]})");
  EXPECT_TRUE(map) << map.error;
  return *map;
}

TEST(RowCapacity, ALaunchThatKeptOneCtaInKHasRowsForThoseCtasOnly) {
  const Buffer8Builder b = one_cta_in_four(5);
  // Three CTAs of two rows: what the header's stride says, and what the buffer holds.
  EXPECT_EQ(b.header().num_rows, 6u);
  EXPECT_EQ(b.bytes.size(), kBufferHeaderBytes + 6 * b.header().row_stride_bytes);
  const Trace t = decode(map_of_two_groups(), b.bytes.data(), b.bytes.size());
  ASSERT_TRUE(t.ok()) << (t.problems.empty() ? "" : t.problems[0]);
  ASSERT_EQ(t.rows.size(), 6u);
  const uint32_t ctas[] = {0, 0, 4, 4, 8, 8};
  for (size_t r = 0; r < t.rows.size(); ++r) {
    EXPECT_EQ(t.rows[r].cta, ctas[r]) << "row " << r;
    EXPECT_EQ(t.rows[r].row_in_cta, r % 2) << "row " << r;
  }
  // Each kept CTA whole, with its own payloads.
  EXPECT_EQ(t.rows[4].slices.size(), 5u);
  EXPECT_EQ(t.rows[4].slices[4].payload, 804);
  EXPECT_EQ(t.header.cta_stride, 4u);
  EXPECT_EQ(t.header.recorded_ctas(), 3u);
}

TEST(RowCapacity, TheCtasAStrideLeftOutAreReportedNotSilentlyMissing) {
  const Buffer8Builder b = one_cta_in_four(5);
  const Trace t = decode(map_of_two_groups(), b.bytes.data(), b.bytes.size());
  const Completeness c = completeness_of(t);
  EXPECT_FALSE(c.complete());
  EXPECT_EQ(c.ctas_left_out, 7u);
  EXPECT_EQ(c.dropped_events, 0u);
  EXPECT_EQ(completeness_line(c),
            "INCOMPLETE: 7 CTAs not recorded: 1 CTA in 4 recorded whole, the rows of every CTA "
            "being more than the pool holds (CUTRACE_POOL_MB)");
  // The row headers alone (a run read without its records) say the same.
  const std::vector<uint8_t> packed = compact_buffer(b.bytes.data(), b.bytes.size());
  const BufferGaps gaps = buffer_gaps(packed.data(), packed.size());
  EXPECT_EQ(gaps.ctas_left_out, 7u);
  EXPECT_EQ(gaps.cta_stride, 4u);
  EXPECT_EQ(gaps.dropped_events, 0u);
  // And the compact layout decodes to the same rows.
  const Trace compact = decode(map_of_two_groups(), packed.data(), packed.size());
  ASSERT_TRUE(compact.ok()) << (compact.problems.empty() ? "" : compact.problems[0]);
  ASSERT_EQ(compact.rows.size(), 6u);
  EXPECT_EQ(compact.rows[5].cta, 8u);
  EXPECT_EQ(compact.rows[4].slices.size(), 5u);
}

TEST(RowCapacity, ARowInTheWrongPlaceForItsStrideIsReported) {
  // The second CTA's rows say CTA 1, where a stride of 4 puts CTA 4.
  Buffer8Builder b = one_cta_in_four(2);
  test_support::put32(b.bytes, b.row_at(4, 0) + 24, 1);
  const Trace t = decode(map_of_two_groups(), b.bytes.data(), b.bytes.size());
  ASSERT_FALSE(t.problems.empty());
  EXPECT_NE(t.problems[0].find("header names CTA 1 group 0, but the row belongs to CTA 4"),
            std::string::npos)
      << t.problems[0];
}

TEST(RowCapacity, AHeaderWhoseRowsDoNotMatchItsStrideIsRefused) {
  Buffer8Builder b = one_cta_in_four(2);
  test_support::put32(b.bytes, 4 * 15, 2u << kCtaStrideShift); // 5 CTAs' rows, not 3
  const Expected<BufferHeader> h = parse_buffer_header(b.bytes.data(), b.bytes.size());
  ASSERT_FALSE(h);
  EXPECT_EQ(h.error, "num_rows 6 is not grid size 10 (1 CTA in 2: 5) x 2 groups");
  // Word 15's bit 0 is the device's own (direct stores): a decoder reads the stride only.
  Buffer8Builder direct = one_cta_in_four(2);
  test_support::put32(direct.bytes, 4 * 15, 4u << kCtaStrideShift | kDirectStoresFlag);
  EXPECT_TRUE(parse_buffer_header(direct.bytes.data(), direct.bytes.size()));
}

} // namespace
} // namespace cutrace
