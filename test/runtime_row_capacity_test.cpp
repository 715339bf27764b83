// Rows sized at launch (docs/FORMAT.md, "Row capacity"): a launch's header may give its rows more
// slots than the decode map's max_events, and the decoder takes the header's figure.
#include <cutrace/decode.h>

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

} // namespace
} // namespace cutrace
