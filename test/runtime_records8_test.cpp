// The 8-byte records of buffer version 3 (docs/FORMAT.md, "Record (8 bytes)"), on synthetic
// buffers written with the recorder's rules (test/support/buffer_builder.h, Buffer8Builder).
#include <cutrace/decode.h>
#include <cutrace/run.h>

#include "support/buffer_builder.h"

#include <gtest/gtest.h>

#include <climits>

namespace cutrace {
namespace {

// Sites: 0 tile (range, lane mma), 1 epi (range_start, lane main), 2 iter (record, mma),
// 3 wait (range, main); all in group 0. Site 65535 exists to test the site field's range.
const char *kMapJson = R"({"format_version":1,"kernel":"k","max_events":MAXEV,"clock":"CLOCK",
 "groups":[{"index":0,"name":"block","lead":"0"}],"lanes":["main","mma"],
 "sites":[{"id":0,"kind":"range","name":"tile","lane":1,"group":0},
          {"id":1,"kind":"range_start","name":"epi","lane":0,"group":0},
          {"id":2,"kind":"record","name":"iter","lane":1,"group":0},
          {"id":3,"kind":"range","name":"wait","lane":0,"group":0},
          {"id":65535,"kind":"record","name":"last","lane":0,"group":0}]})";

DecodeMap map_of(uint32_t max_events, Clock clock = Clock::clock64) {
  std::string json = kMapJson;
  json.replace(json.find("MAXEV"), 5, std::to_string(max_events));
  json.replace(json.find("CLOCK"), 5, clock == Clock::clock64 ? "clock64" : "globaltimer");
  Expected<DecodeMap> map = parse_decode_map(json);
  EXPECT_TRUE(map) << map.error;
  return *map;
}

using test_support::Buffer8Builder;
using test_support::put32;
constexpr auto B = RecordKind::begin, E = RecordKind::end, I = RecordKind::instant;

std::string problems_of(const Trace &t) {
  std::string s;
  for (const std::string &p : t.problems)
    s += p + "\n";
  return s;
}

Trace decode_of(const Buffer8Builder &b, uint32_t max_events, Clock clock = Clock::clock64) {
  return decode(map_of(max_events, clock), b.bytes.data(), b.bytes.size());
}

// A slice's begin and end in raw clock ticks (the per-CTA view counts from the CTA's first event).
uint64_t origin(const Trace &t) { return t.rows[0].start_cycles; }

TEST(Records8, TheDeviceWritesVersion3With8ByteSlotsAnd16ByteAlignedRows) {
  Buffer8Builder b(2, 1, 5); // an odd capacity is padded to a whole 16 bytes
  EXPECT_EQ(b.header().version, kRecordFormatVersion);
  EXPECT_EQ(b.header().record_bytes(), 8u);
  EXPECT_EQ(b.header().row_stride_bytes, 64u + 6 * 8);
  EXPECT_EQ(row_stride_bytes(6), 64u + 6 * 8);
  EXPECT_EQ(row_stride_bytes(6, kFormatVersion), 64u + 6 * 16);
}

TEST(Records8, PayloadlessEventsAreOneRecordEachAndKeepTheirSiteKindAndTime) {
  Buffer8Builder b(1, 1, 8);
  b.start(0, 0, 1000, 5000);
  b.event(0, 0, B, 1, 0, 5010);
  b.event(0, 0, I, 2, 0, 5020);
  b.event(0, 0, I, 65535, 0, 5025); // the largest site id
  b.event(0, 0, E, 1, 0, 5030);
  b.end(0, 0, 2000, 5100);
  const Trace t = decode_of(b, 8);
  ASSERT_TRUE(t.ok()) << problems_of(t);
  const Row &row = t.rows[0];
  EXPECT_EQ(row.stored, 4u);
  EXPECT_EQ(row.attempted, 4u);
  ASSERT_EQ(row.slices.size(), 1u);
  EXPECT_EQ(row.slices[0].name, "epi");
  EXPECT_EQ(row.slices[0].payload, 0);
  EXPECT_EQ(row.slices[0].end_cycles - row.slices[0].begin_cycles, 20u);
  ASSERT_EQ(row.instants.size(), 2u);
  EXPECT_EQ(row.instants[0].name, "iter");
  EXPECT_EQ(row.instants[1].name, "last");
  EXPECT_EQ(row.instants[1].cycles - row.instants[0].cycles, 5u);
}

TEST(Records8, APayloadRecordFollowsItsEventOrNarrowRangeAndCarriesAnyInt32) {
  Buffer8Builder b(1, 1, 16);
  b.start(0, 0, 1000, 5000);
  b.event(0, 0, I, 2, INT32_MIN, 5010);
  b.event(0, 0, I, 2, INT32_MAX, 5020);
  b.event(0, 0, I, 2, -1, 5030);
  b.event(0, 0, B, 1, 42, 5040);
  b.event(0, 0, E, 1, 42, 5050); // an END stores no payload
  b.narrow_range(0, 0, 0, 7, 5060, 5070);
  b.end(0, 0, 2000, 5100);
  const Trace t = decode_of(b, 16);
  ASSERT_TRUE(t.ok()) << problems_of(t);
  const Row &row = t.rows[0];
  EXPECT_EQ(row.stored, 3u * 2 + 2 + 1 + 2);
  ASSERT_EQ(row.instants.size(), 3u);
  EXPECT_EQ(row.instants[0].payload, INT32_MIN);
  EXPECT_EQ(row.instants[1].payload, INT32_MAX);
  EXPECT_EQ(row.instants[2].payload, -1);
  ASSERT_EQ(row.slices.size(), 2u);
  EXPECT_EQ(row.slices[0].payload, 42);
  EXPECT_EQ(row.slices[1].payload, 7);
}

TEST(Records8, AWideRangeIsItsHeadAndPayloadThenItsBeginAndEnd) {
  Buffer8Builder b(1, 1, 8);
  b.start(0, 0, 1000, 0xFFFFFF00ull);
  b.range(0, 0, 0, 0, 0xFFFFFF10ull, 0xFFFFFF20ull);    // payload 0 is stored too
  b.range(0, 0, 3, -5, 0x100000000ull, 0x100000000ull); // both times' low words are 0
  b.range(0, 0, 65535, INT32_MAX, 0x100000010ull, 0x100000010ull + 0x80000000ull);
  b.end(0, 0, 9000000000ull, 0x200000000ull);
  const Trace t = decode_of(b, 8);
  ASSERT_TRUE(t.ok()) << problems_of(t);
  const Row &row = t.rows[0];
  EXPECT_EQ(row.stored, 6u); // 16 bytes per range, whatever its payload or length
  ASSERT_EQ(row.slices.size(), 3u);
  EXPECT_EQ(row.slices[0].name, "tile");
  EXPECT_EQ(row.slices[0].end_cycles - row.slices[0].begin_cycles, 0x10u);
  EXPECT_EQ(row.slices[1].name, "wait");
  EXPECT_EQ(row.slices[1].payload, -5);
  EXPECT_EQ(row.slices[1].begin_cycles, 0x100000000ull - 0xFFFFFF10ull);
  EXPECT_EQ(row.slices[1].end_cycles, row.slices[1].begin_cycles);
  EXPECT_EQ(row.slices[2].name, "last");
  EXPECT_EQ(row.slices[2].payload, INT32_MAX);
  EXPECT_EQ(row.slices[2].end_cycles - row.slices[2].begin_cycles, 0x80000000ull);
}

TEST(Records8, AWideRangeCutFromItsTimesAtTheRowsEndIsReportedAndNotShown) {
  Buffer8Builder b(1, 1, 3);
  b.start(0, 0, 1000, 5000);
  b.event(0, 0, I, 2, 0, 5010);
  b.event(0, 0, I, 2, 0, 5020);
  b.range(0, 0, 3, 1, 5030, 5040); // head in the last slot, its times past it
  b.end(0, 0, 2000, 5100);
  const Trace t = decode_of(b, 3);
  EXPECT_NE(problems_of(t).find("row 0: 1 ranges whose times were cut by the row's capacity"),
            std::string::npos)
      << problems_of(t);
  EXPECT_EQ(t.rows[0].stored, 3u);
  EXPECT_EQ(t.rows[0].dropped, 1u);
  EXPECT_TRUE(t.rows[0].slices.empty());
  EXPECT_EQ(t.rows[0].instants.size(), 2u);
}

TEST(Records8, ANarrowRangeIsOneRecordHoldingItsEndAndLength) {
  Buffer8Builder b(1, 1, 8);
  b.start(0, 0, 1000, 5000);
  b.narrow_range(0, 0, 0, 0, 5000, 5000);         // length 0
  b.narrow_range(0, 0, 3, 0, 5100, 5100 + 16382); // the longest length one record holds
  b.end(0, 0, 200000, 100000);
  const Trace t = decode_of(b, 8);
  ASSERT_TRUE(t.ok()) << problems_of(t);
  const Row &row = t.rows[0];
  EXPECT_EQ(row.stored, 2u); // 8 bytes per range of one thread
  ASSERT_EQ(row.slices.size(), 2u);
  EXPECT_EQ(row.slices[0].name, "tile");
  EXPECT_EQ(row.slices[0].begin_cycles, 0u);
  EXPECT_EQ(row.slices[0].end_cycles, 0u);
  EXPECT_FALSE(row.slices[0].incomplete);
  EXPECT_EQ(row.slices[1].name, "wait");
  EXPECT_EQ(row.slices[1].begin_cycles, 100u);
  EXPECT_EQ(row.slices[1].end_cycles - row.slices[1].begin_cycles, 16382u);
}

TEST(Records8, ANarrowRangeOf2To14MinusOneTicksOrMoreTakesItsBeginFromAnExtRecord) {
  Buffer8Builder b(1, 1, 8);
  b.start(0, 0, 1000, 5000);
  b.narrow_range(0, 0, 0, 9, 5000, 5000 + 16383);
  b.narrow_range(0, 0, 3, 0, 50000, 50000 + (uint64_t(1) << 31)); // a 2^31-tick range
  b.end(0, 0, 3000000000ull, 3000000000ull);
  const Trace t = decode_of(b, 8);
  ASSERT_TRUE(t.ok()) << problems_of(t);
  const Row &row = t.rows[0];
  EXPECT_EQ(row.stored, 3u + 2u); // RANGE, EXT, PAYLOAD; RANGE, EXT
  ASSERT_EQ(row.slices.size(), 2u);
  EXPECT_EQ(row.slices[0].end_cycles - row.slices[0].begin_cycles, 16383u);
  EXPECT_EQ(row.slices[0].payload, 9);
  EXPECT_EQ(row.slices[1].begin_cycles, 45000u);
  EXPECT_EQ(row.slices[1].end_cycles - row.slices[1].begin_cycles, uint64_t(1) << 31);
}

TEST(Records8, TimesUnwrapAcrossTheLow32BitsFromTheRowStart) {
  const uint64_t start = 0x1FFFFFF00ull; // 256 ticks before the low word wraps
  Buffer8Builder b(1, 1, 8);
  b.start(0, 0, 1000, start);
  b.event(0, 0, I, 2, 0, start + 16);
  b.range(0, 0, 3, 0, start + 200, start + 600); // begins before the wrap, ends after it
  b.event(0, 0, I, 2, 0, start + 0xF0000000ull); // consecutive records < 2^32 ticks apart
  b.event(0, 0, I, 2, 0, start + 0x1E0000000ull);
  b.end(0, 0, 9000000000ull, start + 0x1F0000000ull);
  const Trace t = decode_of(b, 8);
  ASSERT_TRUE(t.ok()) << problems_of(t);
  const Row &row = t.rows[0];
  ASSERT_EQ(row.instants.size(), 3u);
  ASSERT_EQ(row.slices.size(), 1u);
  const uint64_t zero = start + 16; // the CTA's first event
  EXPECT_EQ(row.instants[0].cycles, 0u);
  EXPECT_EQ(row.slices[0].begin_cycles, start + 200 - zero);
  EXPECT_EQ(row.slices[0].end_cycles, start + 600 - zero);
  EXPECT_EQ(row.instants[1].cycles, start + 0xF0000000ull - zero);
  EXPECT_EQ(row.instants[2].cycles, start + 0x1E0000000ull - zero);
}

TEST(Records8, GlobaltimerRecordsUnwrapFromTheRowStartNanoseconds) {
  const uint64_t ns = 0x18000000FFFFFF00ull;
  Buffer8Builder b(1, 1, 8, Clock::globaltimer);
  b.start(0, 0, ns, 777);
  b.range(0, 0, 0, 0, ns + 64, ns + 1024);
  b.end(0, 0, ns + 4096, 9000);
  const Trace t = decode_of(b, 8, Clock::globaltimer);
  ASSERT_TRUE(t.ok()) << problems_of(t);
  ASSERT_EQ(t.rows[0].slices.size(), 1u);
  EXPECT_DOUBLE_EQ(t.rows[0].slices[0].begin_ns, 64.0);
  EXPECT_DOUBLE_EQ(t.rows[0].slices[0].end_ns, 1024.0);
}

TEST(Records8, OverflowKeepsTheFirstSlotsAndCountsTheDroppedOnes) {
  Buffer8Builder b(1, 1, 4);
  b.start(0, 0, 1000, 5000);
  for (uint32_t i = 0; i < 5; ++i)
    b.event(0, 0, I, 2, 0, 5000 + 10 * i);
  b.range(0, 0, 0, 5, 5100, 5200); // a wide range: two slots, both past the capacity
  b.end(0, 0, 2000, 5300);
  const Trace t = decode_of(b, 4);
  ASSERT_TRUE(t.ok()) << problems_of(t);
  const Row &row = t.rows[0];
  EXPECT_EQ(row.attempted, 7u);
  EXPECT_EQ(row.stored, 4u);
  EXPECT_EQ(row.dropped, 3u);
  EXPECT_EQ(row.instants.size(), 4u);
  EXPECT_TRUE(row.slices.empty());
}

TEST(Records8, ALongNarrowRangeCutFromItsExtAtTheRowsEndIsReportedAndNotShown) {
  Buffer8Builder b(1, 1, 4);
  b.start(0, 0, 1000, 5000);
  b.event(0, 0, I, 2, 0, 5010);
  b.event(0, 0, I, 2, 0, 5020);
  b.event(0, 0, I, 2, 0, 5030);
  b.narrow_range(0, 0, 3, 0, 5040, 5040 + 40000); // RANGE in the last slot, its EXT past it
  b.end(0, 0, 200000, 50000);
  const Trace t = decode_of(b, 4);
  EXPECT_NE(problems_of(t).find("row 0: 1 ranges whose times were cut by the row's capacity"),
            std::string::npos)
      << problems_of(t);
  EXPECT_EQ(t.rows[0].dropped, 1u);
  EXPECT_TRUE(t.rows[0].slices.empty());
  EXPECT_EQ(t.rows[0].instants.size(), 3u);
}

TEST(Records8, APayloadCutByTheRowsEndLeavesItsEventWithPayload0) {
  Buffer8Builder b(1, 1, 2);
  b.start(0, 0, 1000, 5000);
  b.event(0, 0, I, 2, 0, 5010);
  b.narrow_range(0, 0, 0, 11, 5020, 5030); // RANGE fits, its PAYLOAD does not
  b.end(0, 0, 2000, 5100);
  const Trace t = decode_of(b, 2);
  ASSERT_TRUE(t.ok()) << problems_of(t);
  ASSERT_EQ(t.rows[0].slices.size(), 1u);
  EXPECT_EQ(t.rows[0].slices[0].payload, 0);
  EXPECT_EQ(t.rows[0].dropped, 1u);
}

TEST(Records8, SingleRecordRangesNestAndInterleaveWithBeginEndRecordsInBeginOrder) {
  Buffer8Builder b(1, 1, 16);
  b.start(0, 0, 1000, 5000);
  b.event(0, 0, B, 1, 3, 5000);           // epi begins (explicit range, lane main)
  b.range(0, 0, 3, 0, 5010, 5020);        // wait, inside epi (lane main)
  b.narrow_range(0, 0, 0, 1, 5015, 5040); // tile (lane mma), overlapping the wait
  b.range(0, 0, 3, 0, 5005, 5050);        // an outer wait, written after the inner ones it holds
  b.event(0, 0, E, 1, 0, 5060);           // epi ends
  b.end(0, 0, 2000, 5100);
  const Trace t = decode_of(b, 16);
  ASSERT_TRUE(t.ok()) << problems_of(t);
  const Row &row = t.rows[0];
  ASSERT_EQ(row.slices.size(), 4u);
  const std::pair<std::string, uint64_t> expected[] = {
      {"epi", 0}, {"wait", 5}, {"wait", 10}, {"tile", 15}};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(row.slices[i].name, expected[i].first) << i;
    EXPECT_EQ(row.slices[i].begin_cycles, expected[i].second) << i;
    EXPECT_FALSE(row.slices[i].incomplete) << i;
  }
  EXPECT_EQ(row.slices[0].end_cycles, 60u);
  EXPECT_EQ(row.slices[0].payload, 3);
  EXPECT_EQ(row.slices[1].end_cycles, 50u); // the outer wait comes before the inner one
  EXPECT_EQ(row.slices[2].end_cycles, 20u);
  EXPECT_EQ(row.slices[3].payload, 1);
}

TEST(Records8, ABeginWithoutItsEndAtTheRowsEndIsAnIncompleteSlice) {
  Buffer8Builder b(1, 1, 8);
  b.start(0, 0, 1000, 5000);
  b.event(0, 0, B, 1, 0, 5010);
  b.range(0, 0, 3, 0, 5020, 5030);
  const Trace t = decode_of(b, 8); // the writer never reached its end (a trap)
  ASSERT_TRUE(t.ok()) << problems_of(t);
  ASSERT_EQ(t.rows[0].slices.size(), 2u);
  EXPECT_TRUE(t.rows[0].slices[0].incomplete);
  EXPECT_EQ(t.rows[0].slices[0].end_cycles, 20u); // the row's last record
  EXPECT_FALSE(t.rows[0].slices[1].incomplete);
}

TEST(Records8, HeadWordsOutsideTheLayoutAreInvalidRecords) {
  Buffer8Builder b(1, 1, 8);
  b.start(0, 0, 1000, 5000);
  b.slot(0, 0, Buffer8Builder::head(I, 2) | 1u << 20, 5010);     // reserved bits 27..16
  b.slot(0, 0, 6u << kKindShift | 2, 5020);                      // kind 6 does not exist
  b.slot(0, 0, Buffer8Builder::head(RecordKind::payload, 2), 1); // a payload of nothing
  b.slot(0, 0, Buffer8Builder::head(RecordKind::ext, 2), 1);     // an EXT of no long range
  b.event(0, 0, I, 2, 0, 5030);
  b.slot(0, 0, Buffer8Builder::head(RecordKind::payload, 3), 1); // another site's payload
  b.end(0, 0, 2000, 5100);
  const Trace t = decode_of(b, 8);
  EXPECT_NE(problems_of(t).find("row 0: 5 invalid records"), std::string::npos) << problems_of(t);
  ASSERT_EQ(t.rows[0].instants.size(), 1u);
  EXPECT_EQ(t.rows[0].instants[0].payload, 0);
}

TEST(Records8, CompactingKeepsVersion3AndDecodesAsTheFullBuffer) {
  Buffer8Builder b(3, 1, 64);
  for (uint32_t c = 0; c < 3; ++c) {
    b.start(c, 0, 1000 + c, 5000);
    for (uint32_t i = 0; i < 10 * c; ++i)
      b.range(c, 0, 0, int32_t(i), 5000 + 100 * i, 5050 + 100 * i);
    b.end(c, 0, 900000, 9000);
  }
  const std::vector<uint8_t> compact = compact_buffer(b.bytes.data(), b.bytes.size());
  Expected<BufferHeader> h = parse_buffer_header(compact.data(), compact.size());
  ASSERT_TRUE(h) << h.error;
  EXPECT_EQ(h->version, kRecordFormatVersion);
  EXPECT_EQ(h->layout, BufferLayout::compact);
  // Header, row headers and 8 bytes per stored slot (two per wide range).
  EXPECT_EQ(compact.size(), 64u + 3 * 64 + 8 * (2 * 10 + 2 * 20));
  const Trace full = decode_of(b, 64);
  const Trace small = decode(map_of(64), compact.data(), compact.size());
  ASSERT_TRUE(small.ok()) << problems_of(small);
  ASSERT_EQ(small.rows.size(), full.rows.size());
  for (size_t r = 0; r < full.rows.size(); ++r) {
    ASSERT_EQ(small.rows[r].slices.size(), full.rows[r].slices.size());
    for (size_t i = 0; i < full.rows[r].slices.size(); ++i) {
      EXPECT_EQ(small.rows[r].slices[i].begin_cycles, full.rows[r].slices[i].begin_cycles);
      EXPECT_EQ(small.rows[r].slices[i].payload, full.rows[r].slices[i].payload);
    }
  }
}

} // namespace
} // namespace cutrace
