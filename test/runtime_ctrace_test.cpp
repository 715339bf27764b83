// The `.ctrace` container (docs/FORMAT.md) and atomic, no-clobber file writes.
#include <cutrace/ctrace.h>

#include "support/scratch_dir.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sys/resource.h>
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
  const BufferHeader h = BufferHeader::for_launch(1, 4, Clock::clock64, grid, block, kFormatVersion);
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

fs::path scratch_dir() { return test_support::scratch_dir("cutrace_ctrace_test_"); }

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

// Reading files: a reason for every failure, the preamble checked before the body is read, and
// no allocation a section's claimed length alone could force.
TEST(CtraceFile, DirectoryIsAnErrorSayingWhy) {
  const fs::path dir = scratch_dir();
  Expected<Ctrace> back = read_ctrace_file(dir.string());
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error, "cannot read '" + dir.string() + "': Is a directory");
  fs::remove_all(dir);
}

TEST(CtraceFile, MissingFileIsAnErrorSayingWhy) {
  Expected<Ctrace> back = read_ctrace_file("/nonexistent/k.ctrace");
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error, "cannot read '/nonexistent/k.ctrace': No such file or directory");
}

long peak_rss_kb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

TEST(CtraceFile, LargeFileWithABadMagicIsRejectedWithoutReadingIt) {
  const fs::path dir = scratch_dir();
  const std::string path = (dir / "big.bin").string();
  std::ofstream(path).close();
  fs::resize_file(path, uintmax_t(1) << 30); // sparse: 1 GiB of zeros, no disk used
  const long before = peak_rss_kb();
  Expected<Ctrace> back = read_ctrace_file(path);
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error, path + ": not a .ctrace file (bad magic)");
  EXPECT_LT(peak_rss_kb() - before, 64 * 1024);
  fs::remove_all(dir);
}

TEST(CtraceFile, SectionClaimingMoreThanTheFileIsRejectedBeforeAllocating) {
  const fs::path dir = scratch_dir();
  const std::string path = (dir / "k.ctrace").string();
  std::vector<uint8_t> bytes = encode_ctrace(sample());
  const uint64_t huge = uint64_t(1) << 50;
  std::memcpy(&bytes[16 + 8], &huge, 8); // the MAP section claims a petabyte
  ASSERT_FALSE(write_file_atomic(path, bytes));
  Expected<Ctrace> back = read_ctrace_file(path);
  ASSERT_FALSE(back);
  EXPECT_NE(back.error.find(".ctrace truncated: section 0 needs 1125899906842624 bytes"),
            std::string::npos)
      << back.error;
  fs::remove_all(dir);
}

// Property: a file on disk reads exactly as its bytes parse in memory, for every prefix.
TEST(CtraceFile, EveryPrefixReadsAsItParsesInMemory) {
  const fs::path dir = scratch_dir();
  const std::string path = (dir / "k.ctrace").string();
  const std::vector<uint8_t> bytes = encode_ctrace(sample());
  for (size_t n = 0; n <= bytes.size(); ++n) {
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + n);
    ASSERT_FALSE(write_file_atomic(path, prefix));
    Expected<Ctrace> in_memory = parse_ctrace(prefix.data(), prefix.size());
    Expected<Ctrace> from_file = read_ctrace_file(path);
    ASSERT_EQ(bool(in_memory), bool(from_file)) << n;
    if (!in_memory)
      EXPECT_EQ(from_file.error, path + ": " + in_memory.error) << n;
    else
      EXPECT_EQ(from_file->buffer, in_memory->buffer);
  }
  fs::remove_all(dir);
}

// Recorder::dump writes through write_ctrace_file: the runtime creates the folders it writes to.
TEST(CtraceFile, WriteCreatesMissingFolders) {
  const fs::path dir = scratch_dir();
  const std::string path = (dir / "run1" / "nested" / "k.ctrace").string();
  ASSERT_FALSE(write_ctrace_file(path, sample()));
  Expected<Ctrace> back = read_ctrace_file(path);
  ASSERT_TRUE(back) << back.error;
  EXPECT_EQ(back->buffer, sample().buffer);
  fs::remove_all(dir);
}

TEST(CtraceFile, WriteBelowAFileSaysWhichFolderFailedAndWritesNothing) {
  const fs::path dir = scratch_dir();
  const fs::path file = dir / "plain";
  std::ofstream(file) << "x";
  std::optional<std::string> err =
      write_ctrace_file((file / "sub" / "k.ctrace").string(), sample());
  ASSERT_TRUE(err);
  EXPECT_EQ(err->rfind("cannot create folder " + (file / "sub").string() + ": ", 0), 0u) << *err;
  EXPECT_TRUE(fs::is_regular_file(file));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  fs::remove_all(dir);
}

} // namespace
} // namespace cutrace
