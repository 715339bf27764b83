// Rows sized at launch (docs/FORMAT.md, "Row capacity"): a launch's header may give its rows more
// slots than the decode map's max_events, and the decoder takes the header's figure; such rows
// keep their first and last records when they fill ("When a row fills").
#include <cutrace/decode.h>
#include <cutrace/run.h>

#include "support/buffer_builder.h"

#include <gtest/gtest.h>

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

// A version-4 buffer (rows sized at launch: a ring of the last records, docs/FORMAT.md "When a
// row fills") of one row of `capacity` slots, with `ranges` wide RANGEs 10 ticks apart (payload
// i), the ring's cells after `gap_ticks` more from range `jump_at` on.
Buffer8Builder ring_row(uint32_t capacity, uint32_t ranges, uint64_t gap_ticks = 0,
                        uint32_t jump_at = 0) {
  Buffer8Builder b(1, 1, capacity, Clock::clock64, 64, kRingFormatVersion);
  b.start(0, 0, 1'000'000, 10'000'000);
  uint64_t t = 10'000'100;
  for (uint32_t i = 0; i < ranges; ++i, t += 10) {
    if (i == jump_at && gap_ticks)
      t += gap_ticks;
    b.range(0, 0, 0, int32_t(i), t, t + 5);
  }
  b.end(0, 0, 1'010'000 + gap_ticks, t + 100);
  return b;
}

std::vector<int32_t> payloads(const Row &row) {
  std::vector<int32_t> out;
  for (const Slice &s : row.slices)
    out.push_back(s.payload);
  return out;
}

std::vector<int32_t> iota(int32_t from, int32_t to) {
  std::vector<int32_t> out;
  for (int32_t i = from; i < to; ++i)
    out.push_back(i);
  return out;
}

TEST(RowRing, AFullRowKeepsItsFirstRecordsAndItsLastAndSaysWhatItLostBetween) {
  // 64 slots: 8 ring cells (16 slots), a first part of 48. Ranges 0-22 start before slot 45 and
  // stay there; 23-99 go to the ring one cell each, which keeps the last 8 (92-99): 69 lost.
  ASSERT_EQ(ring_cells(64), 8u);
  const Buffer8Builder b = ring_row(64, 100);
  const Trace t = decode(map_of_64(), b.bytes.data(), b.bytes.size());
  ASSERT_TRUE(t.problems.empty()) << t.problems[0];
  ASSERT_EQ(t.rows.size(), 1u);
  const Row &row = t.rows[0];
  std::vector<int32_t> want = iota(0, 23), last = iota(92, 100);
  want.insert(want.end(), last.begin(), last.end());
  EXPECT_EQ(payloads(row), want);
  EXPECT_EQ(row.dropped, 69u);
  EXPECT_EQ(row.unmatched_ends, 0u);
  ASSERT_TRUE(row.gap);
  // From range 22's end to range 92's begin, in the per-CTA view (cycles since its first event).
  EXPECT_EQ(row.gap_begin_cycles, 22u * 10 + 5);
  EXPECT_EQ(row.gap_end_cycles, 92u * 10);
  for (const Slice &s : row.slices) {
    EXPECT_FALSE(s.incomplete) << s.payload;
    EXPECT_EQ(s.end_cycles - s.begin_cycles, 5u) << s.payload;
  }
}

TEST(RowRing, ARingThatNeverWentRoundLosesNothing) {
  // Ranges 23-29 take 7 of the 8 cells: every range is there, in order, and no gap.
  const Buffer8Builder b = ring_row(64, 30);
  const Trace t = decode(map_of_64(), b.bytes.data(), b.bytes.size());
  ASSERT_TRUE(t.problems.empty()) << t.problems[0];
  EXPECT_EQ(payloads(t.rows[0]), iota(0, 30));
  EXPECT_EQ(t.rows[0].dropped, 0u);
  EXPECT_FALSE(t.rows[0].gap);
}

TEST(RowRing, TheLastRecordsAreTimedFromTheRowsEndAcrossALongGap) {
  // 5e9 cycles (more than 2^32) pass between range 40 and 41: unwrapped from range 22, the
  // ring's ranges would come 2^32 cycles early; the row's end header places them.
  const Buffer8Builder b = ring_row(64, 100, 5'000'000'000ull, 41);
  const Trace t = decode(map_of_64(), b.bytes.data(), b.bytes.size());
  ASSERT_TRUE(t.problems.empty()) << t.problems[0];
  const Row &row = t.rows[0];
  ASSERT_EQ(row.slices.size(), 31u);
  EXPECT_EQ(row.slices[23].payload, 92);
  EXPECT_EQ(row.slices[23].begin_cycles, 92u * 10 + 5'000'000'000ull);
}

TEST(RowRing, EventsOfOneAndTwoSlotsAndARangeOpenAcrossTheGap) {
  // A BEGIN (payload 7) before the ring is reached, its END among the records lost; instants
  // with and without payloads fill the rest: the slice stays incomplete, ending where the
  // records before the gap end, and the ENDs after the gap are not reported as unmatched.
  Expected<DecodeMap> map = parse_decode_map(
      R"({"format_version":1,"kernel":"k","source":"k.cu","max_events":32,"clock":"clock64",
          "groups":[{"index":0,"name":"block","lead":"0"}],"lanes":["main"],
          "sites":[{"id":0,"kind":"range","name":"open","lane":0,"group":0,"loc":"k.cu:1:1"},
                   {"id":1,"kind":"record","name":"tick","lane":0,"group":0,"loc":"k.cu:2:1"}],
          "flows":[]})");
  ASSERT_TRUE(map) << map.error;
  Buffer8Builder b(1, 1, 32, Clock::clock64, 64, kRingFormatVersion); // 4 cells, first part 24
  b.start(0, 0, 1'000'000, 10'000'000);
  uint64_t t = 10'000'100;
  b.event(0, 0, RecordKind::begin, 0, 7, t);
  for (int i = 0; i < 40; ++i)
    b.event(0, 0, RecordKind::instant, 1, i % 2 ? i : 0, t += 10);
  b.event(0, 0, RecordKind::end, 0, 0, t += 10);
  for (int i = 40; i < 44; ++i) // the ring's last 4 cells
    b.event(0, 0, RecordKind::instant, 1, i % 2 ? i : 0, t += 10);
  b.end(0, 0, 1'010'000, t + 100);
  const Trace tr = decode(*map, b.bytes.data(), b.bytes.size());
  ASSERT_TRUE(tr.problems.empty()) << tr.problems[0];
  const Row &row = tr.rows[0];
  ASSERT_EQ(row.slices.size(), 1u);
  EXPECT_TRUE(row.slices[0].incomplete);
  EXPECT_EQ(row.slices[0].payload, 7);
  EXPECT_EQ(row.unmatched_ends, 0u);
  ASSERT_TRUE(row.gap);
  EXPECT_EQ(row.slices[0].end_cycles, row.gap_begin_cycles);
  std::vector<int32_t> got;
  for (const Instant &i : row.instants)
    got.push_back(i.payload);
  // The first part (24 slots; records starting before slot 21): the BEGIN and its PAYLOAD, then
  // instants 0-12 (odd ones with a PAYLOAD: 2 slots each). Then the last 4 cells: 40-43.
  EXPECT_EQ(got, (std::vector<int32_t>{0, 1, 0, 3, 0, 5, 0, 7, 0, 9, 0, 11, 0, 0, 41, 0, 43}));
}

TEST(RowRing, ACompactCopyDecodesAsTheFullBuffer) {
  const Buffer8Builder b = ring_row(64, 100);
  const std::vector<uint8_t> compact = compact_buffer(b.bytes.data(), b.bytes.size());
  const Expected<BufferHeader> h = parse_buffer_header(compact.data(), compact.size());
  ASSERT_TRUE(h) << h.error;
  EXPECT_EQ(h->layout, BufferLayout::compact);
  EXPECT_EQ(h->version, kRingFormatVersion);
  const Trace full = decode(map_of_64(), b.bytes.data(), b.bytes.size());
  const Trace packed = decode(map_of_64(), compact.data(), compact.size());
  ASSERT_TRUE(packed.problems.empty()) << packed.problems[0];
  EXPECT_EQ(payloads(packed.rows[0]), payloads(full.rows[0]));
  EXPECT_EQ(packed.rows[0].dropped, 69u);
  EXPECT_EQ(packed.rows[0].stored, 64u);
}

TEST(RowRing, TheRuleAtSmallCapacities) {
  EXPECT_EQ(ring_cells(7), 0u); // no ring: a full row keeps its first records only
  EXPECT_EQ(linear_slots(7), 7u);
  EXPECT_EQ(ring_cells(8), 1u);
  EXPECT_EQ(ring_cells(1000), 64u); // 1000 / 8 = 125: the largest power of two within
  EXPECT_EQ(linear_slots(1000), 872u);
  EXPECT_EQ(ring_cells(1024), 128u); // a quarter exactly
  // The cursor after the first part: 2 per cell.
  EXPECT_EQ(ring_cells_written(871, 1000), 0u);
  EXPECT_EQ(ring_cells_written(874, 1000), 1u);
  EXPECT_EQ(ring_dropped(872 + 2 * 64, 1000), 0u);
  EXPECT_EQ(ring_dropped(872 + 2 * 65, 1000), 1u);
}

} // namespace
} // namespace cutrace
