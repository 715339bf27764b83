// The `.ctrace` container (docs/FORMAT.md) and atomic, no-clobber file writes.
#include <cutrace/ctrace.h>

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <unistd.h>

namespace cutrace {
namespace {

namespace fs = std::filesystem;

const char *kMap = R"({"format_version":1,"kernel":"k","max_events":4,"clock":"clock64",
  "groups":[{"index":0,"name":"block","lead":"0"}],"lanes":["main"],
  "sites":[{"id":0,"kind":"record","name":"tick","lane":0,"group":0,"loc":"k.cu:3:3"}],
  "flows":[]})";

// One CTA, one group, one instant: the smallest meaningful recording.
Ctrace sample() {
  Ctrace c;
  c.map_json = kMap;
  c.grid[0] = 1;
  c.block[0] = 32;
  c.launch_index = 3;
  const uint32_t grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};
  const BufferHeader h = BufferHeader::for_launch(1, 4, Clock::clock64, grid, block);
  c.buffer.assign(h.buffer_bytes(), 0);
  encode_buffer_header(h, c.buffer.data());
  uint8_t *row = c.buffer.data() + kBufferHeaderBytes;
  const uint32_t start = kRowStartTag, head = uint32_t(RecordKind::instant) << kRecordKindShift;
  const uint64_t ts = 1234;
  std::memcpy(row, &start, 4);
  std::memcpy(row + kRowHeaderBytes, &head, 4);
  std::memcpy(row + kRowHeaderBytes + 8, &ts, 8);
  return c;
}

fs::path scratch_dir() {
  fs::path dir =
      fs::temp_directory_path() / ("cutrace_ctrace_test_" + std::to_string(::getpid()) + "_" +
                                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(Ctrace, RoundTrip) {
  const Ctrace c = sample();
  const std::vector<uint8_t> bytes = encode_ctrace(c);
  Expected<Ctrace> back = parse_ctrace(bytes.data(), bytes.size());
  ASSERT_TRUE(back) << back.error;
  EXPECT_EQ(back->map_json, c.map_json);
  EXPECT_EQ(back->buffer, c.buffer);
  EXPECT_EQ(back->grid[0], 1u);
  EXPECT_EQ(back->block[0], 32u);
  EXPECT_EQ(back->launch_index, 3u);
  Expected<Trace> t = decode_ctrace(*back);
  ASSERT_TRUE(t) << t.error;
  EXPECT_TRUE(t->ok());
  ASSERT_EQ(t->rows.size(), 1u);
  ASSERT_EQ(t->rows[0].instants.size(), 1u);
  EXPECT_EQ(t->rows[0].instants[0].name, "tick");
}

TEST(Ctrace, FileRoundTrip) {
  const fs::path dir = scratch_dir();
  const std::string path = (dir / "k.ctrace").string();
  ASSERT_FALSE(write_file_atomic(path, encode_ctrace(sample())));
  Expected<Ctrace> back = read_ctrace_file(path);
  ASSERT_TRUE(back) << back.error;
  EXPECT_EQ(back->buffer, sample().buffer);
  fs::remove_all(dir);
}

// Property: every proper prefix of a valid file is rejected, never read past its end.
TEST(Ctrace, TruncatedFileIsAnError) {
  const std::vector<uint8_t> bytes = encode_ctrace(sample());
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + n);
    EXPECT_FALSE(parse_ctrace(prefix.data(), prefix.size())) << "prefix of " << n << " bytes";
  }
}

TEST(Ctrace, BadMagicIsAnError) {
  std::vector<uint8_t> bytes = encode_ctrace(sample());
  bytes[0] = 'X';
  EXPECT_FALSE(parse_ctrace(bytes.data(), bytes.size()));
}

TEST(Ctrace, UnknownSectionIsSkipped) {
  std::vector<uint8_t> bytes = encode_ctrace(sample());
  bytes[12] = 4; // one more section...
  const uint8_t extra[16 + 3] = {'N', 'E', 'W', 'S', 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3};
  bytes.insert(bytes.end(), extra, extra + sizeof extra); // ...appended at the end
  Expected<Ctrace> back = parse_ctrace(bytes.data(), bytes.size());
  ASSERT_TRUE(back) << back.error;
  EXPECT_EQ(back->buffer, sample().buffer);
}

TEST(Ctrace, NeverOverwriteKeepsExistingFile) {
  const fs::path dir = scratch_dir();
  const std::string path = (dir / "k.json").string();
  ASSERT_FALSE(write_file_atomic(path, std::string("first"), Overwrite::never));
  EXPECT_TRUE(write_file_atomic(path, std::string("second"), Overwrite::never).has_value());
  Expected<std::vector<uint8_t>> data = read_file(path);
  ASSERT_TRUE(data);
  EXPECT_EQ(std::string(data->begin(), data->end()), "first");
  // No temporary files are left behind either way.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  fs::remove_all(dir);
}

TEST(Ctrace, ReplaceOverwritesAtomically) {
  const fs::path dir = scratch_dir();
  const std::string path = (dir / "k.ctrace").string();
  ASSERT_FALSE(write_file_atomic(path, std::string("first")));
  ASSERT_FALSE(write_file_atomic(path, std::string("second")));
  Expected<std::vector<uint8_t>> data = read_file(path);
  EXPECT_EQ(std::string(data->begin(), data->end()), "second");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  fs::remove_all(dir);
}

TEST(Ctrace, SummaryJsonNamesGroupsAndLanes) {
  const Ctrace c = sample();
  Expected<DecodeMap> map = parse_decode_map(c.map_json);
  ASSERT_TRUE(map);
  Expected<Trace> t = decode_ctrace(c);
  ASSERT_TRUE(t);
  const std::string json = trace_summary_json(*map, *t);
  EXPECT_NE(json.find("\"kernel\": \"k\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"group\": \"block\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"lane\": \"main\""), std::string::npos) << json;
}

} // namespace
} // namespace cutrace
