// Inputs the fuzz targets (fuzz/, docs/reliability.md) found, reduced to the rule they broke. The
// raw inputs stay in fuzz/regressions/ and are replayed by every fuzz run.
#include <cutrace/ctrace.h>
#include <cutrace/decode.h>
#include <cutrace/run_trace.h>

#include "support/buffer_builder.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>
#include "support/tree_paths.h"

namespace cutrace {
namespace {

const char *kMapJson = R"({"format_version":1,"kernel":"k","max_events":8,"clock":"clock64",
 "groups":[{"index":0,"name":"block"}],"lanes":["main"],
 "sites":[{"id":0,"kind":"range","name":"a","lane":0,"group":0},
          {"id":1,"kind":"record","name":"r","lane":0,"group":0},
          {"id":2,"kind":"range","name":"b","lane":0,"group":0}],
 "flows":[{"src":"a","dst":"b"}]})";

constexpr auto B = RecordKind::begin, E = RecordKind::end, I = RecordKind::instant;

bool mentions(const Trace &t, const std::string &text) {
  for (const std::string &p : t.problems)
    if (p.find(text) != std::string::npos)
      return true;
  return false;
}

// fuzz_ctrace: an END stamped before its BEGIN gave a slice of negative length, and a flow into
// it called std::clamp with lo > hi.
TEST(DecodeCorrupt, SliceNeverEndsBeforeItBegins) {
  Expected<DecodeMap> map = parse_decode_map(kMapJson);
  ASSERT_TRUE(map) << map.error;
  test_support::BufferBuilder b(1, 1, 8);
  b.start(0, 0, 1000000, 1000);
  b.event(0, 0, B, 0, 0, 1100);
  b.event(0, 0, E, 0, 0, 1200);
  b.event(0, 0, B, 2, 0, 1500);
  b.event(0, 0, E, 2, 0, 1300); // out of time order
  b.end(0, 0, 1002000, 5000);
  const Trace t = decode(*map, b.bytes.data(), b.bytes.size());
  ASSERT_EQ(t.rows.size(), 1u);
  ASSERT_EQ(t.rows[0].slices.size(), 2u);
  const Slice &s = t.rows[0].slices[1];
  EXPECT_EQ(s.end_cycles, s.begin_cycles);
  EXPECT_EQ(s.end_ns, s.begin_ns);
  EXPECT_TRUE(mentions(t, "row 0: 1 slices end before they begin")) << t.problems.size();
  ASSERT_EQ(t.flows.size(), 1u);
  EXPECT_EQ(t.flows[0].at_cycles, s.begin_cycles);
  EXPECT_EQ(t.flows[0].at_ns, s.begin_ns);
}

// The same for a slice left open: it ends at the row's last timestamp, which a corrupt row may
// put before the BEGIN.
TEST(DecodeCorrupt, OpenSliceNeverEndsBeforeItBegins) {
  Expected<DecodeMap> map = parse_decode_map(kMapJson);
  ASSERT_TRUE(map) << map.error;
  test_support::BufferBuilder b(1, 1, 8);
  b.start(0, 0, 1000000, 1000);
  b.event(0, 0, B, 0, 0, 1500);
  b.event(0, 0, I, 1, 0, 1200); // the row's last record, stamped before the open BEGIN
  const Trace t = decode(*map, b.bytes.data(), b.bytes.size());
  ASSERT_EQ(t.rows.size(), 1u);
  ASSERT_EQ(t.rows[0].slices.size(), 1u);
  const Slice &s = t.rows[0].slices[0];
  EXPECT_TRUE(s.incomplete);
  EXPECT_EQ(s.end_cycles, s.begin_cycles);
  EXPECT_EQ(s.end_ns, s.begin_ns);
  EXPECT_TRUE(mentions(t, "row 0: 1 slices end before they begin"));
}

// fuzz_ctrace: a globaltimer row's cycles are its ns times the rate; a corrupt timestamp or rate
// made that product overflow int64 (undefined behaviour, caught by the sanitizer build). It
// saturates instead.
TEST(DecodeCorrupt, CyclesOfAFarTimestampSaturate) {
  std::string json = kMapJson;
  json.replace(json.find("clock64"), 7, "globaltimer");
  Expected<DecodeMap> map = parse_decode_map(json);
  ASSERT_TRUE(map) << map.error;
  test_support::BufferBuilder b(1, 1, 8, Clock::globaltimer);
  b.start(0, 0, 1000000, 1000);
  b.event(0, 0, I, 1, 0, 1000000);
  b.event(0, 0, I, 1, 0, 1000000 + 1000000000); // 1 s later at 1e11 cycles/ns: 1e20 cycles
  DecodeOptions options;
  options.ghz_override = 1e11;
  const Trace t = decode(*map, b.bytes.data(), b.bytes.size(), options);
  ASSERT_EQ(t.rows.size(), 1u);
  ASSERT_EQ(t.rows[0].instants.size(), 2u);
  EXPECT_EQ(t.rows[0].instants[0].cycles, 0u);
  EXPECT_EQ(t.rows[0].instants[1].cycles, uint64_t(INT64_MAX));
}

// fuzz_decode_map: get<uint32_t>() on 1e22 is a float-to-integer conversion out of range
// (undefined behaviour), and -1 or 2^32+1 wrapped silently into another site, lane or count.
TEST(DecodeMapReader, CountsIdsAndIndicesOutOfRangeAreErrors) {
  for (const auto &[from, to] : std::vector<std::pair<std::string, std::string>>{
           {R"("max_events":8)", R"("max_events":1e22)"},
           {R"("max_events":8)", R"("max_events":-1)"},
           {R"("id":2)", R"("id":4294967298)"},
           {R"("lane":0,"group":0},
          {"id":2)",
            R"("lane":0.5,"group":0},
          {"id":2)"},
           {R"("index":0)", R"("index":4294967296)"}}) {
    std::string json = kMapJson;
    ASSERT_NE(json.find(from), std::string::npos) << from;
    json.replace(json.find(from), from.size(), to);
    Expected<DecodeMap> map = parse_decode_map(json);
    EXPECT_FALSE(map) << to;
    EXPECT_NE(map.error.find("must be an integer from 0 to 4294967295"), std::string::npos)
        << map.error;
  }
}

std::vector<uint8_t> kept_input(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const std::filesystem::path kCtraceRegressions =
    std::filesystem::path(CUTRACE_FUZZ_REGRESSIONS) / "ctrace";

// fuzz_ctrace: a BUF section of 0 bytes made the reader memcpy into a vector's null data(), which
// is undefined behaviour even for 0 bytes (UBSan stops on it: the sanitizer stage runs this test).
TEST(CtraceReader, EmptyBufSectionIsReadWithoutCopying) {
  const std::vector<uint8_t> bytes = kept_input(kCtraceRegressions / "empty_buf_section.ctrace");
  ASSERT_EQ(bytes.size(), 32u);
  Expected<Ctrace> container = parse_ctrace(bytes.data(), bytes.size());
  if (container)
    EXPECT_TRUE(container->buffer.empty());
  else
    EXPECT_FALSE(container.error.empty());
  Expected<cutrace::Run> run = parse_run(bytes.data(), bytes.size());
  EXPECT_TRUE(run || !run.error.empty());
}

// Every input fuzz_ctrace found and kept reads, and decodes when accepted, into slices that never
// end before they begin: the fuzzer's properties on each, in the unit tests.
TEST(CtraceReader, EveryKeptFuzzInputReadsAndDecodes) {
  size_t inputs = 0;
  for (const std::filesystem::directory_entry &e :
       std::filesystem::directory_iterator(kCtraceRegressions)) {
    const std::vector<uint8_t> bytes = kept_input(e.path());
    ++inputs;
    Expected<cutrace::Run> run = parse_run(bytes.data(), bytes.size());
    if (!run)
      continue;
    Expected<RunTrace> decoded = decode_run(*run);
    if (!decoded)
      continue;
    for (const RunLaunch &l : decoded->launches)
      for (const Row &row : l.trace.rows)
        for (const Slice &s : row.slices) {
          EXPECT_LE(s.begin_cycles, s.end_cycles) << e.path();
          EXPECT_LE(s.begin_ns, s.end_ns) << e.path();
        }
  }
  EXPECT_GE(inputs, 4u); // the folder was found and holds the inputs kept so far
}

} // namespace
} // namespace cutrace
