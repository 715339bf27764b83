// Compact buffers, the run container and decoded runs (docs/FORMAT.md, "Compact layout" and
// "Runs"): what a run stores of a launch decodes exactly as the full buffer did, a run file cut
// short keeps what was written before the cut, and a run's launches land on one time axis.
#include <cutrace/ctrace.h>
#include <cutrace/export.h>
#include <cutrace/run.h>
#include <cutrace/run_trace.h>

#include "support/buffer_builder.h"
#include "support/scratch_dir.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include "support/tree_paths.h"

namespace cutrace {
namespace {

// The run type is spelled cutrace::Run throughout: inside a TEST body `Run` is
// testing::Test::Run.
namespace fs = std::filesystem;
using test_support::BufferBuilder;
using test_support::put32;
using test_support::put64;
using test_support::read32;
using test_support::read64;

constexpr auto B = RecordKind::begin, E = RecordKind::end, I = RecordKind::instant;

// A kernel with `groups` groups; sites 0 work (range, lane main), 1 wait (range, lane side),
// 2 tick (record, main), 3 phase (range_start, side); TRACE_DAG work -> wait. Records of site 4
// are records of a site the map does not know.
std::string map_json(uint32_t groups, uint32_t max_events, Clock clock,
                     const std::string &kernel = "k") {
  std::string list;
  for (uint32_t g = 0; g < groups; ++g)
    list += std::string(g ? "," : "") + R"({"index":)" + std::to_string(g) + R"(,"name":"g)" +
            std::to_string(g) + R"(","lead":"0"})";
  return R"({"format_version":1,"kernel":")" + kernel + R"(","source":"k.cu","max_events":)" +
         std::to_string(max_events) + R"(,"clock":")" +
         (clock == Clock::clock64 ? "clock64" : "globaltimer") + R"(","groups":[)" + list +
         R"(],"lanes":["main","side"],
 "sites":[{"id":0,"kind":"range","name":"work","lane":0,"group":0,"loc":"k.cu:3:3"},
          {"id":1,"kind":"range","name":"wait","lane":1,"group":0,"loc":"k.cu:5:3"},
          {"id":2,"kind":"record","name":"tick","lane":0,"group":0,"loc":"k.cu:7:3"},
          {"id":3,"kind":"range_start","name":"phase","lane":1,"group":0,"loc":"k.cu:9:3"}],
 "flows":[{"src":"work","dst":"wait"}]})";
}

DecodeMap parsed(const std::string &json) {
  Expected<DecodeMap> map = parse_decode_map(json);
  EXPECT_TRUE(map) << map.error;
  return map ? *map : DecodeMap{};
}

Trace decode_bytes(const DecodeMap &map, const std::vector<uint8_t> &bytes) {
  return decode(map, bytes.data(), bytes.size());
}

std::string all_problems(const std::vector<std::string> &problems) {
  std::string s;
  for (const std::string &p : problems)
    s += p + "\n";
  return s;
}

// ---- Comparing decoded launches ----

// The first field in which two decoded launches differ, or "" when they agree on every field but
// the buffer's version and layout. Doubles are compared exactly: both sides compute them from
// the same header pairs and records.
class TraceDiff {
public:
  template <class T> void same(const std::string &where, const T &a, const T &b) {
    if (first_.empty() && !(a == b)) {
      std::ostringstream s;
      s << where << ": " << a << " vs " << b;
      first_ = s.str();
    }
  }
  const std::string &first() const { return first_; }

private:
  std::string first_;
};

void compare_rows(TraceDiff &d, const Row &a, const Row &b) {
  const std::string at = "row " + std::to_string(a.index) + " ";
  d.same(at + "index", a.index, b.index);
  d.same(at + "cta", a.cta, b.cta);
  d.same(at + "group", a.group, b.group);
  d.same(at + "smid", a.smid, b.smid);
  d.same(at + "started", a.started, b.started);
  d.same(at + "closed", a.closed, b.closed);
  d.same(at + "start_ns", a.start_ns, b.start_ns);
  d.same(at + "start_cycles", a.start_cycles, b.start_cycles);
  d.same(at + "end_ns", a.end_ns, b.end_ns);
  d.same(at + "end_cycles", a.end_cycles, b.end_cycles);
  d.same(at + "attempted", a.attempted, b.attempted);
  d.same(at + "stored", a.stored, b.stored);
  d.same(at + "dropped", a.dropped, b.dropped);
  d.same(at + "ghz", a.ghz, b.ghz);
  d.same(at + "ghz_source", int(a.ghz_source), int(b.ghz_source));
  d.same(at + "ghz_measured", a.ghz_measured, b.ghz_measured);
  d.same(at + "unmatched_ends", a.unmatched_ends, b.unmatched_ends);
  d.same(at + "unknown_sites", a.unknown_sites, b.unknown_sites);
  d.same(at + "invalid_records", a.invalid_records, b.invalid_records);
  d.same(at + "slices", a.slices.size(), b.slices.size());
  for (size_t i = 0; i < std::min(a.slices.size(), b.slices.size()); ++i) {
    const Slice &x = a.slices[i], &y = b.slices[i];
    const std::string s = at + "slice " + std::to_string(i) + " ";
    d.same(s + "site", x.site, y.site);
    d.same(s + "name", x.name, y.name);
    d.same(s + "lane", x.lane, y.lane);
    d.same(s + "payload", x.payload, y.payload);
    d.same(s + "begin_cycles", x.begin_cycles, y.begin_cycles);
    d.same(s + "end_cycles", x.end_cycles, y.end_cycles);
    d.same(s + "begin_ns", x.begin_ns, y.begin_ns);
    d.same(s + "end_ns", x.end_ns, y.end_ns);
    d.same(s + "incomplete", x.incomplete, y.incomplete);
  }
  d.same(at + "instants", a.instants.size(), b.instants.size());
  for (size_t i = 0; i < std::min(a.instants.size(), b.instants.size()); ++i) {
    const Instant &x = a.instants[i], &y = b.instants[i];
    const std::string s = at + "instant " + std::to_string(i) + " ";
    d.same(s + "site", x.site, y.site);
    d.same(s + "name", x.name, y.name);
    d.same(s + "lane", x.lane, y.lane);
    d.same(s + "payload", x.payload, y.payload);
    d.same(s + "cycles", x.cycles, y.cycles);
    d.same(s + "ns", x.ns, y.ns);
  }
}

std::string first_difference(const Trace &a, const Trace &b) {
  TraceDiff d;
  d.same("kernel", a.kernel, b.kernel);
  const BufferHeader &x = a.header, &y = b.header;
  d.same("num_groups", x.num_groups, y.num_groups);
  d.same("max_events", x.max_events, y.max_events);
  for (int i = 0; i < 3; ++i) {
    d.same("grid", x.grid[i], y.grid[i]);
    d.same("block", x.block[i], y.block[i]);
  }
  d.same("clock", int(x.clock), int(y.clock));
  d.same("row_stride_bytes", x.row_stride_bytes, y.row_stride_bytes);
  d.same("num_rows", x.num_rows, y.num_rows);
  d.same("device_clock_khz", x.device_clock_khz, y.device_clock_khz);
  d.same("origin_ns", a.origin_ns, b.origin_ns);
  d.same("rows", a.rows.size(), b.rows.size());
  for (size_t r = 0; r < std::min(a.rows.size(), b.rows.size()); ++r)
    compare_rows(d, a.rows[r], b.rows[r]);
  d.same("flows", a.flows.size(), b.flows.size());
  for (size_t i = 0; i < std::min(a.flows.size(), b.flows.size()); ++i) {
    const Flow &f = a.flows[i], &g = b.flows[i];
    const std::string s = "flow " + std::to_string(i) + " ";
    d.same(s + "src row", f.src.row, g.src.row);
    d.same(s + "src slice", f.src.slice, g.src.slice);
    d.same(s + "dst row", f.dst.row, g.dst.row);
    d.same(s + "dst slice", f.dst.slice, g.dst.slice);
    d.same(s + "at_cycles", f.at_cycles, g.at_cycles);
    d.same(s + "at_ns", f.at_ns, g.at_ns);
  }
  d.same("backward_flows", a.backward_flows, b.backward_flows);
  d.same("unpaired_flows", a.unpaired_flows, b.unpaired_flows);
  d.same("problems", all_problems(a.problems), all_problems(b.problems));
  return d.first();
}

// ---- Synthetic launches ----

// A launch as the device leaves it (full layout), its map, and how many records it holds.
struct Recording {
  std::string map_json;
  std::vector<uint8_t> full;
  uint64_t stored = 0; // per row min(events, max_events); records past a trap are not written
};

// A random launch with every kind of row the device leaves behind: never started; started and
// closed with 0 to 2 * max_events + 2 events (overflow keeps the first max_events); started and
// never closed (a trap) with the records written until then. Times increase along each row as
// the device's do; kinds, sites and nesting are random, so rows also hold unmatched ENDs, open
// BEGINs, unknown sites and, now and then, an invalid record.
Recording random_recording(std::mt19937_64 &rng) {
  auto pick = [&rng](uint32_t lo, uint32_t hi) {
    return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
  };
  const uint32_t ctas = pick(1, 6), groups = pick(1, 3), max_events = pick(1, 12);
  const Clock clock = pick(0, 1) ? Clock::globaltimer : Clock::clock64;
  BufferBuilder b(ctas, groups, max_events, clock, 32 * groups);
  if (pick(0, 1))
    put32(b.bytes, 52, 1'980'000); // device_clock_khz: the rate of last resort
  Recording out;
  out.map_json = map_json(groups, max_events, clock);
  const uint64_t base_ns = 1'765'000'000'000'000'000ull + pick(0, 1u << 30);
  for (uint32_t c = 0; c < ctas; ++c)
    for (uint32_t g = 0; g < groups; ++g) {
      const uint32_t fate = pick(0, 9); // 0-1: never started, 2-3: trapped, else closed
      if (fate < 2)
        continue;
      const uint32_t cycles_per_ns = pick(1, 3);
      uint64_t ns = base_ns + pick(0, 100'000), cycles = 5'000'000 + pick(0, 1'000'000);
      b.start(c, g, ns, cycles, pick(0, 131));
      const uint32_t events = fate < 4 ? pick(0, max_events) : pick(0, 2 * max_events + 2);
      for (uint32_t e = 0; e < events; ++e) {
        const uint32_t step = pick(1, 3000);
        ns += step, cycles += uint64_t(step) * cycles_per_ns;
        b.event(c, g, RecordKind(pick(1, 3)), pick(0, 4), int32_t(pick(0, 200)) - 100,
                clock == Clock::clock64 ? cycles : ns);
      }
      const uint32_t stored = std::min(events, max_events);
      if (stored > 0 && pick(0, 15) == 0) // reserved head bits set: an invalid record
        put32(b.bytes, b.row_at(c, g) + kRowHeaderBytes + kLegacyRecordBytes * pick(0, stored - 1),
              1u << 30 | 1u << 20);
      out.stored += stored;
      if (fate >= 4) {
        const uint32_t tail = pick(0, 5000);
        b.end(c, g, ns + tail, cycles + uint64_t(tail) * cycles_per_ns);
      }
    }
  out.full = std::move(b.bytes);
  return out;
}

std::vector<uint8_t> compacted(const std::vector<uint8_t> &full) {
  return compact_buffer(full.data(), full.size());
}

TEST(Compact, DecodeOfCompactEqualsDecodeOfFull) {
  std::mt19937_64 rng(13);
  size_t never_started = 0, trapped_with_records = 0, overflowed = 0, empty_closed = 0;
  size_t clocks[2] = {0, 0};
  for (int i = 0; i < 500; ++i) {
    const Recording rec = random_recording(rng);
    const DecodeMap map = parsed(rec.map_json);
    const Trace full = decode_bytes(map, rec.full);
    const Trace compact = decode_bytes(map, compacted(rec.full));
    ASSERT_EQ(first_difference(full, compact), "") << "buffer " << i;
    EXPECT_EQ(compact.header.layout, BufferLayout::compact);
    ++clocks[int(full.header.clock)];
    for (const Row &row : full.rows) {
      never_started += !row.started;
      trapped_with_records += row.started && !row.closed && row.stored > 0;
      overflowed += row.dropped > 0;
      empty_closed += row.closed && row.stored == 0;
    }
  }
  // The buffers held every kind of row, so the equality says something about each.
  EXPECT_GT(never_started, 50u);
  EXPECT_GT(trapped_with_records, 50u);
  EXPECT_GT(overflowed, 50u);
  EXPECT_GT(empty_closed, 20u);
  EXPECT_GT(clocks[0], 100u);
  EXPECT_GT(clocks[1], 100u);
}

// The comparison the property rests on sees a one-record change.
TEST(Compact, ComparisonSeesAChangedRecord) {
  BufferBuilder b(1, 1, 4);
  b.start(0, 0, 1000, 10000);
  b.event(0, 0, I, 2, 5, 10100);
  b.end(0, 0, 2000, 12000);
  const DecodeMap map = parsed(map_json(1, 4, Clock::clock64));
  std::vector<uint8_t> compact = compacted(b.bytes);
  ASSERT_EQ(first_difference(decode_bytes(map, b.bytes), decode_bytes(map, compact)), "");
  put32(compact, kBufferHeaderBytes + kRowHeaderBytes + 4, 6); // the instant's payload
  EXPECT_EQ(first_difference(decode_bytes(map, b.bytes), decode_bytes(map, compact)),
            "row 0 instant 0 payload: 5 vs 6");
}

TEST(Compact, SizeIsHeadersPlusRecords) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 300; ++i) {
    const Recording rec = random_recording(rng);
    const std::vector<uint8_t> compact = compacted(rec.full);
    const uint32_t rows = read32(&rec.full[48]);
    ASSERT_EQ(compact.size(), 64 + 64 * uint64_t(rows) + 16 * rec.stored) << "buffer " << i;
    // The header says version 2, layout compact; bytes 60-63 of the row headers add up.
    EXPECT_EQ(read32(&compact[4]), kCompactFormatVersion);
    EXPECT_EQ(read32(&compact[56]), uint32_t(BufferLayout::compact));
    uint64_t counted = 0;
    for (uint32_t r = 0; r < rows; ++r)
      counted += read32(&compact[kBufferHeaderBytes + r * kRowHeaderBytes + 60]);
    EXPECT_EQ(counted, rec.stored) << "buffer " << i;
  }
}

TEST(Compact, OnlyValidFullBuffersAreCompacted) {
  BufferBuilder b(2, 1, 4);
  b.start(0, 0, 1000, 10000);
  b.event(0, 0, I, 2, 5, 10100);
  const std::vector<uint8_t> compact = compacted(b.bytes);
  ASSERT_LT(compact.size(), b.bytes.size());
  EXPECT_EQ(compacted(compact), compact); // already compact
  const std::vector<uint8_t> cut(b.bytes.begin(), b.bytes.end() - 1);
  EXPECT_EQ(compacted(cut), cut); // truncated: kept whole for the decoder to report
  const std::vector<uint8_t> junk(100, 0xAB);
  EXPECT_EQ(compacted(junk), junk);
}

// The device read-back copies the row headers with pitch 64 and each row's first `longest`
// records (the longest stored count of a closed row, the capacity if a row never closed).
TEST(Compact, RowsInMemoryWithPitchesMatchesCompactBuffer) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 300; ++i) {
    const Recording rec = random_recording(rng);
    Expected<BufferHeader> h = parse_buffer_header(rec.full.data(), rec.full.size());
    ASSERT_TRUE(h) << h.error;
    const uint8_t *rows = rec.full.data() + kBufferHeaderBytes;
    std::vector<uint8_t> headers(uint64_t(h->num_rows) * kRowHeaderBytes);
    uint32_t longest = 0;
    for (uint32_t r = 0; r < h->num_rows; ++r) {
      const uint8_t *row = rows + uint64_t(r) * h->row_stride_bytes;
      std::copy(row, row + kRowHeaderBytes, &headers[uint64_t(r) * kRowHeaderBytes]);
      longest = std::max(longest, stored_records(row, h->max_events).value_or(h->max_events));
    }
    const size_t pitch = size_t(longest) * kLegacyRecordBytes;
    std::vector<uint8_t> records(h->num_rows * pitch);
    for (uint32_t r = 0; r < h->num_rows; ++r) {
      const uint8_t *first = rows + uint64_t(r) * h->row_stride_bytes + kRowHeaderBytes;
      std::copy(first, first + pitch, records.begin() + r * pitch);
    }
    const std::vector<uint8_t> from_rows =
        compact_rows(*h, {headers.data(), kRowHeaderBytes, records.data(), pitch, longest});
    ASSERT_EQ(from_rows, compacted(rec.full)) << "buffer " << i << ", longest " << longest;
  }
}

TEST(Compact, StoredRecordsOfClosedRowsOnly) {
  BufferBuilder b(3, 1, 4);
  b.start(0, 0, 1000, 10000);
  b.event(0, 0, I, 2, 0, 10100);
  b.end(0, 0, 2000, 12000);
  b.start(1, 0, 1000, 10000);
  for (int e = 0; e < 9; ++e)
    b.event(1, 0, I, 2, 0, 10100 + e);
  b.end(1, 0, 2000, 12000);
  b.start(2, 0, 1000, 10000); // trapped
  b.event(2, 0, I, 2, 0, 10100);
  auto row = [&b](uint32_t cta) { return b.bytes.data() + b.row_at(cta, 0); };
  EXPECT_EQ(stored_records(row(0), 4), 1u);
  EXPECT_EQ(stored_records(row(1), 4), 4u); // 9 attempted, 4 stored
  EXPECT_EQ(stored_records(row(2), 4), std::nullopt);
}

// A buffer with rows of 1, 2, 3 and 1 records (2 CTAs x 2 groups, max_events 4), compact.
std::vector<uint8_t> four_row_compact() {
  BufferBuilder b(2, 2, 4);
  const uint32_t counts[4] = {1, 2, 3, 1};
  for (uint32_t r = 0; r < 4; ++r) {
    const uint32_t cta = r / 2, group = r % 2;
    b.start(cta, group, 1000, 10000);
    for (uint32_t e = 0; e < counts[r]; ++e)
      b.event(cta, group, I, 2, int32_t(r), 10100 + e);
    b.end(cta, group, 2000, 12000);
  }
  return compacted(b.bytes);
}

size_t row_header_at(uint32_t r) { return kBufferHeaderBytes + r * kRowHeaderBytes; }

TEST(Compact, CorruptCountsAreProblemsNotCrashes) {
  const DecodeMap map = parsed(map_json(2, 4, Clock::clock64));
  const std::vector<uint8_t> good = four_row_compact();
  const Trace intact = decode_bytes(map, good);
  ASSERT_TRUE(intact.ok()) << all_problems(intact.problems);
  ASSERT_EQ(intact.rows.size(), 4u);

  // Over max_events, with enough bytes after it that only max_events can catch it.
  std::vector<uint8_t> over = good;
  put32(over, row_header_at(1) + 60, 5);
  over.resize(over.size() + 16 * kLegacyRecordBytes, 0x11);
  Trace t = decode_bytes(map, over);
  EXPECT_EQ(t.rows.size(), 1u);
  EXPECT_NE(all_problems(t.problems).find("row 1: compact record count 5 runs past the buffer"),
            std::string::npos)
      << all_problems(t.problems);

  // Within max_events, but past the end: the last row says 4 and 1 record is left.
  std::vector<uint8_t> past = good;
  put32(past, row_header_at(3) + 60, 4);
  t = decode_bytes(map, past);
  EXPECT_EQ(t.rows.size(), 3u);
  EXPECT_NE(all_problems(t.problems).find("row 3: compact record count 4"), std::string::npos);
  for (size_t r = 0; r < t.rows.size(); ++r)
    EXPECT_EQ(t.rows[r].stored, intact.rows[r].stored);

  // Every count in every row: never a crash or a read past the end (exactly sized copies, so
  // the sanitizer build sees any), and a count that is not the row's own is a problem.
  for (uint32_t r = 0; r < 4; ++r)
    for (uint32_t count : {0u, 1u, 2u, 3u, 4u, 5u, 0x7FFFFFFFu, 0xFFFFFFFFu}) {
      std::vector<uint8_t> bad = good;
      put32(bad, row_header_at(r) + 60, count);
      const Trace u = decode_bytes(map, bad);
      const bool own = count == intact.rows[r].stored;
      EXPECT_EQ(u.ok(), own) << "row " << r << " count " << count;
    }

  // Every truncation: the rows before the cut that are whole decode; the cut is reported.
  for (size_t n = 0; n < good.size(); ++n) {
    const std::vector<uint8_t> cut(good.begin(), good.begin() + n);
    const Trace u = decode_bytes(map, cut);
    EXPECT_FALSE(u.ok()) << n;
    EXPECT_LE(u.rows.size(), 4u);
  }
}

TEST(Compact, HeaderClaimingMoreRowsThanItHoldsIsTruncated) {
  const DecodeMap map = parsed(map_json(2, 4, Clock::clock64));
  const std::vector<uint8_t> good = four_row_compact();
  // Cut inside the third row header: two headers are whole; the records, which follow all
  // four headers, are not there (the 40 bytes of the third header are no record).
  const std::vector<uint8_t> cut(good.begin(), good.begin() + row_header_at(2) + 40);
  const Trace t = decode_bytes(map, cut);
  EXPECT_NE(all_problems(t.problems).find("runs past the buffer"), std::string::npos)
      << all_problems(t.problems);
  EXPECT_TRUE(t.rows.empty());
}

TEST(Compact, OldVersion1BuffersStillDecode) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 100; ++i) {
    const Recording rec = random_recording(rng);
    ASSERT_EQ(read32(&rec.full[4]), 1u);
    const DecodeMap map = parsed(rec.map_json);
    const Trace v1 = decode_bytes(map, rec.full);
    EXPECT_EQ(v1.header.version, 1u);
    EXPECT_EQ(v1.header.layout, BufferLayout::full);
    // Word 14 was reserved in version 1: whatever it holds, the rows are at row_stride.
    std::vector<uint8_t> reserved = rec.full;
    put32(reserved, 56, uint32_t(BufferLayout::compact));
    EXPECT_EQ(first_difference(v1, decode_bytes(map, reserved)), "") << i;
    // The same rows as a version 2 full-layout buffer decode the same.
    std::vector<uint8_t> v2 = rec.full;
    put32(v2, 4, kCompactFormatVersion);
    put32(v2, 56, uint32_t(BufferLayout::full));
    EXPECT_EQ(first_difference(v1, decode_bytes(map, v2)), "") << i;
  }
}

// ---- The H200 fixtures (version 1 files, full-capacity buffers) ----

// The single-launch (version 1) dumps; h200/runs/, h200/cutlass/, h200/auto/ and
// h200/issue14/*_run.ctrace are run files (runtime_run_fixture_test,
// runtime_cutlass_fixture_test, runtime_auto_fixture_test, runtime_issue14_fixture_test).
std::vector<std::string> h200_fixtures() {
  std::vector<std::string> out;
  const std::string run_suffix = "_run.ctrace";
  for (const auto &e : fs::recursive_directory_iterator(std::string(CUTRACE_TEST_DATA) + "/h200")) {
    const std::string name = e.path().filename().string();
    const bool run_file =
        e.path().parent_path().filename() == "runs" ||
        e.path().parent_path().filename() == "cutlass" ||
        e.path().parent_path().filename() == "auto" ||
        (name.size() > run_suffix.size() &&
         name.compare(name.size() - run_suffix.size(), run_suffix.size(), run_suffix) == 0);
    if (e.path().extension() == ".ctrace" && !run_file)
      out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Compact, H200FixturesDecodeTheSameCompacted) {
  const std::vector<std::string> files = h200_fixtures();
  ASSERT_GE(files.size(), 14u);
  for (const std::string &file : files) {
    Expected<Ctrace> c = read_ctrace_file(file);
    ASSERT_TRUE(c) << c.error;
    const DecodeMap map = parsed(c->map_json);
    const std::vector<uint8_t> compact = compacted(c->buffer);
    EXPECT_LE(compact.size(), c->buffer.size()) << file; // equal when every row is full
    EXPECT_EQ(first_difference(decode_bytes(map, c->buffer), decode_bytes(map, compact)), "")
        << file;
  }
}

TEST(Run, Version1FileIsARunOfOneLaunchDecodingAsBefore) {
  for (const std::string &file : h200_fixtures()) {
    Expected<Ctrace> c = read_ctrace_file(file);
    ASSERT_TRUE(c) << c.error;
    Expected<cutrace::Run> run = read_run_file(file);
    ASSERT_TRUE(run) << run.error;
    EXPECT_TRUE(run->run_json.empty()) << file;
    EXPECT_TRUE(run->devices.empty()) << file;
    EXPECT_TRUE(run->end_json.empty()) << file;
    EXPECT_TRUE(run->problems.empty()) << file;
    ASSERT_EQ(run->maps.size(), 1u) << file;
    EXPECT_EQ(run->maps[0], c->map_json);
    ASSERT_EQ(run->launches.size(), 1u) << file;
    const LaunchRecord &l = run->launches[0];
    EXPECT_EQ(l.map, 0u);
    EXPECT_EQ(l.device, 0u);
    EXPECT_EQ(l.launch_index, c->launch_index);
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(l.grid[i], c->grid[i]);
      EXPECT_EQ(l.block[i], c->block[i]);
    }
    EXPECT_EQ(l.buffer, c->buffer);

    Expected<Trace> single = decode_ctrace(*c);
    ASSERT_TRUE(single) << single.error;
    Expected<RunTrace> decoded = decode_run(*run, file);
    ASSERT_TRUE(decoded) << decoded.error;
    ASSERT_EQ(decoded->launches.size(), 1u);
    EXPECT_EQ(first_difference(*single, decoded->launches[0].trace), "") << file;
    ASSERT_EQ(decoded->processes.size(), 1u);
    EXPECT_TRUE(decoded->processes[0].complete); // nothing of it is missing
    EXPECT_EQ(decoded->processes[0].file, file);
    EXPECT_FALSE(decoded->host_aligned); // no DEV section: raw globaltimer
    EXPECT_EQ(decoded->origin_ns, single->origin_ns);
    EXPECT_EQ(decoded->launches[0].begin_ns, 0.0);
  }
}

// ---- The run container ----

// One CTA, one group running `work` for `length_ns` from globaltimer `start_ns` at 2 GHz (also
// the header's device clock, so rows too short to measure get it too), as a run stores it.
std::vector<uint8_t> timed_buffer(uint64_t start_ns, uint64_t length_ns) {
  BufferBuilder b(1, 1, 4);
  put32(b.bytes, 52, 2'000'000); // device_clock_khz
  const uint64_t cycles = 1'000'000;
  b.start(0, 0, start_ns, cycles);
  b.event(0, 0, B, 0, 0, cycles + 200);
  b.event(0, 0, E, 0, 0, cycles + 2 * length_ns - 200);
  b.end(0, 0, start_ns + length_ns, cycles + 2 * length_ns);
  return compacted(b.bytes);
}

LaunchRecord timed_launch(uint32_t map, uint32_t device, uint64_t sequence, uint64_t start_ns,
                          uint64_t length_ns, uint64_t host_enqueue_ns = 0) {
  LaunchRecord l;
  l.map = map;
  l.device = device;
  l.stream = 0x7f00'0000'1000 + device;
  l.launch_index = uint32_t(sequence);
  l.sequence = sequence;
  l.host_enqueue_ns = host_enqueue_ns;
  l.block[0] = 32;
  l.buffer = timed_buffer(start_ns, length_ns);
  return l;
}

std::string device_json(uint32_t index, bool aligned, int64_t host_minus_gpu_ns) {
  return R"({"index":)" + std::to_string(index) + R"(,"name":"NVIDIA H200","clock_khz":1980000,)" +
         R"("sms":132,"aligned":)" + (aligned ? "true" : "false") + R"(,"host_minus_gpu_ns":)" +
         std::to_string(host_minus_gpu_ns) + R"(,"alignment_error_ns":480})";
}

const char *kRunJson = R"({"format_version":2,"program":"train","pid":4242,"host":"node7",)"
                       R"("rank":3,"start_unix_ns":1765000000000000000,)"
                       R"("launches":"first:4,every:250","kernels":"*"})";
const char *kEndJson =
    R"({"kernels":[{"kernel":"gemm","launches":300,"recorded":5},)"
    R"({"kernel":"softmax","launches":300,"recorded":0}],"pool_waits":2,"pool_skipped":1,)"
    R"("disk_skipped":7,"graph_launches":0,"end_unix_ns":1765000001000000000})";

// Two kernels on two devices, every launch field set to something other than its default.
cutrace::Run sample_run() {
  cutrace::Run run;
  run.run_json = kRunJson;
  run.devices = {device_json(0, true, 1500), device_json(1, true, -2500)};
  run.maps = {map_json(1, 4, Clock::clock64, "gemm"), map_json(1, 4, Clock::clock64, "softmax")};
  const uint64_t t0 = 1'765'000'000'100'000'000ull;
  run.launches = {timed_launch(0, 0, 0, t0, 5000, t0 - 20'000),
                  timed_launch(1, 1, 1, t0 + 8000, 3000, t0 - 9000),
                  timed_launch(0, 1, 2, t0 + 20'000, 4000)};
  run.launches[1].flags = kLaunchInGraph;
  run.launches[1].launch_index = 0xFFFFFFFFu;
  run.launches[1].grid[0] = 7, run.launches[1].grid[1] = 5, run.launches[1].grid[2] = 3;
  run.launches[1].block[0] = 128, run.launches[1].block[1] = 2, run.launches[1].block[2] = 1;
  run.launches[2].stream = 0;
  run.launches[2].sequence = uint64_t(1) << 40;
  run.end_json = kEndJson;
  return run;
}

void expect_same_launch(const LaunchRecord &a, const LaunchRecord &b, size_t i) {
  EXPECT_EQ(a.map, b.map) << i;
  EXPECT_EQ(a.device, b.device) << i;
  EXPECT_EQ(a.stream, b.stream) << i;
  EXPECT_EQ(a.launch_index, b.launch_index) << i;
  EXPECT_EQ(a.flags, b.flags) << i;
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(a.grid[k], b.grid[k]) << i;
    EXPECT_EQ(a.block[k], b.block[k]) << i;
  }
  EXPECT_EQ(a.host_enqueue_ns, b.host_enqueue_ns) << i;
  EXPECT_EQ(a.sequence, b.sequence) << i;
  EXPECT_EQ(a.buffer, b.buffer) << i;
}

void expect_same_run(const cutrace::Run &a, const cutrace::Run &b) {
  EXPECT_EQ(a.run_json, b.run_json);
  EXPECT_EQ(a.devices, b.devices);
  EXPECT_EQ(a.maps, b.maps);
  ASSERT_EQ(a.launches.size(), b.launches.size());
  for (size_t i = 0; i < a.launches.size(); ++i)
    expect_same_launch(a.launches[i], b.launches[i], i);
  EXPECT_EQ(a.end_json, b.end_json);
}

Expected<cutrace::Run> parse_bytes(const std::vector<uint8_t> &bytes) {
  return parse_run(bytes.data(), bytes.size());
}

TEST(Run, EncodeParseRoundTrip) {
  const cutrace::Run run = sample_run();
  const std::vector<uint8_t> bytes = encode_run(run);
  Expected<cutrace::Run> back = parse_bytes(bytes);
  ASSERT_TRUE(back) << back.error;
  EXPECT_TRUE(back->problems.empty()) << all_problems(back->problems);
  expect_same_run(run, *back);

  // The preamble and the LNCH layout of docs/FORMAT.md, byte by byte.
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 8), std::string("CUTRACE\0", 8));
  EXPECT_EQ(read32(&bytes[8]), 2u);
  EXPECT_EQ(read32(&bytes[12]), 0xFFFFFFFFu); // sections run to the end of the file
  EXPECT_EQ(std::string(bytes.begin() + 16, bytes.begin() + 20), "RUN ");
  EXPECT_EQ(read64(&bytes[24]), run.run_json.size());
  const std::vector<uint8_t> section = encode_launch_section(run.launches[1]);
  const LaunchRecord &l = run.launches[1];
  EXPECT_EQ(std::string(section.begin(), section.begin() + 4), "LNCH");
  EXPECT_EQ(read32(&section[4]), 0u);
  EXPECT_EQ(read64(&section[8]), 64 + l.buffer.size());
  const uint8_t *body = &section[16];
  EXPECT_EQ(read32(body), l.map);
  EXPECT_EQ(read32(body + 4), l.device);
  EXPECT_EQ(read64(body + 8), l.stream);
  EXPECT_EQ(read32(body + 16), l.launch_index);
  EXPECT_EQ(read32(body + 20), kLaunchInGraph);
  EXPECT_EQ(read32(body + 24), 7u);
  EXPECT_EQ(read32(body + 28), 5u);
  EXPECT_EQ(read32(body + 32), 3u);
  EXPECT_EQ(read32(body + 36), 128u);
  EXPECT_EQ(read32(body + 40), 2u);
  EXPECT_EQ(read32(body + 44), 1u);
  EXPECT_EQ(read64(body + 48), l.host_enqueue_ns);
  EXPECT_EQ(read64(body + 56), l.sequence);
  EXPECT_TRUE(std::equal(l.buffer.begin(), l.buffer.end(), body + 64));
  // The whole file: preamble, RUN, DEV x2, MAP x2, LNCH x3, END in that order.
  EXPECT_NE(std::search(bytes.begin(), bytes.end(), section.begin(), section.end()), bytes.end());

  // Without an END the run is one that did not finish.
  cutrace::Run unfinished = run;
  unfinished.end_json.clear();
  Expected<cutrace::Run> cut = parse_bytes(encode_run(unfinished));
  ASSERT_TRUE(cut) << cut.error;
  EXPECT_TRUE(cut->end_json.empty());
  EXPECT_EQ(cut->launches.size(), 3u);
}

TEST(Run, SectionCountBoundsTheSectionsRead) {
  std::vector<uint8_t> bytes = encode_run(sample_run());
  put32(bytes, 12, 1 + 2 + 2 + 1); // RUN, DEV x2, MAP x2, the first LNCH
  Expected<cutrace::Run> back = parse_bytes(bytes);
  ASSERT_TRUE(back) << back.error;
  EXPECT_EQ(back->launches.size(), 1u);
  EXPECT_TRUE(back->end_json.empty());
}

std::vector<uint8_t> file_bytes(const std::string &path) {
  Expected<std::vector<uint8_t>> data = read_file(path);
  EXPECT_TRUE(data) << data.error;
  return data ? *data : std::vector<uint8_t>{};
}

void write_bytes(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
}

TEST(Run, WriterStreamsSectionsAndNeverOverwrites) {
  const fs::path dir = test_support::scratch_dir("cutrace_run_test_");
  const std::string path = (dir / "train.4242.ctrace").string();
  const cutrace::Run run = sample_run();
  Expected<RunWriter *> created = RunWriter::create(path, run.run_json);
  ASSERT_TRUE(created) << created.error;
  std::unique_ptr<RunWriter> w(*created);
  EXPECT_EQ(w->path(), path);

  // Readable after each section, before the run finishes: what a crash would leave.
  auto read_back = [&path]() {
    Expected<cutrace::Run> r = read_run_file(path);
    EXPECT_TRUE(r) << r.error;
    return r ? *r : cutrace::Run{};
  };
  EXPECT_EQ(read_back().run_json, run.run_json);
  for (const std::string &d : run.devices)
    ASSERT_FALSE(w->add_device(d));
  for (const std::string &m : run.maps)
    ASSERT_FALSE(w->add_map(m));
  for (size_t i = 0; i < run.launches.size(); ++i) {
    ASSERT_FALSE(w->add_launch(run.launches[i]));
    const cutrace::Run so_far = read_back();
    EXPECT_EQ(so_far.launches.size(), i + 1);
    EXPECT_TRUE(so_far.end_json.empty());
    EXPECT_TRUE(so_far.problems.empty()) << all_problems(so_far.problems);
    EXPECT_EQ(w->bytes_written(), fs::file_size(path));
  }
  ASSERT_FALSE(w->finish(run.end_json));
  EXPECT_EQ(w->bytes_written(), fs::file_size(path));
  const cutrace::Run finished = read_back();
  expect_same_run(run, finished);
  EXPECT_EQ(file_bytes(path), encode_run(run)); // streamed or whole: the same bytes
  std::optional<std::string> late = w->add_launch(run.launches[0]);
  ASSERT_TRUE(late);
  EXPECT_EQ(*late, "'" + path + "' is already finished");

  // A second writer on the same path fails and leaves the file as it was, byte for byte.
  const std::vector<uint8_t> before = file_bytes(path);
  Expected<RunWriter *> again = RunWriter::create(path, "{}");
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error, "cannot create '" + path + "': File exists");
  EXPECT_EQ(file_bytes(path), before);
  // The same for a file that is not a run.
  const std::string other = (dir / "notes.txt").string();
  write_bytes(other, {'k', 'e', 'e', 'p'});
  EXPECT_FALSE(RunWriter::create(other, "{}"));
  EXPECT_EQ(file_bytes(other), (std::vector<uint8_t>{'k', 'e', 'e', 'p'}));
  fs::remove_all(dir);
}

TEST(Run, TruncatedLastSectionKeepsEarlierLaunches) {
  const fs::path dir = test_support::scratch_dir("cutrace_run_test_");
  const std::string path = (dir / "cut.ctrace").string();
  cutrace::Run run = sample_run();
  run.end_json.clear(); // killed while writing its third launch
  const std::vector<uint8_t> bytes = encode_run(run);
  const size_t last = bytes.size() - encode_launch_section(run.launches.back()).size();
  for (size_t n = last + 1; n < bytes.size(); ++n) {
    const std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + n); // exactly sized
    Expected<cutrace::Run> in_memory = parse_bytes(cut);
    ASSERT_TRUE(in_memory) << n << ": " << in_memory.error;
    ASSERT_EQ(in_memory->launches.size(), 2u) << n;
    for (size_t i = 0; i < 2; ++i)
      expect_same_launch(in_memory->launches[i], run.launches[i], i);
    EXPECT_EQ(in_memory->maps, run.maps);
    ASSERT_EQ(in_memory->problems.size(), 1u) << n;
    EXPECT_NE(in_memory->problems[0].find("run truncated"), std::string::npos)
        << in_memory->problems[0];

    write_bytes(path, cut);
    Expected<cutrace::Run> from_file = read_run_file(path);
    ASSERT_TRUE(from_file) << n << ": " << from_file.error;
    EXPECT_EQ(from_file->launches.size(), 2u) << n;
    EXPECT_EQ(from_file->problems, in_memory->problems) << n;

    Expected<RunTrace> decoded = decode_run(*in_memory, path);
    ASSERT_TRUE(decoded) << decoded.error;
    EXPECT_EQ(decoded->launches.size(), 2u);
    EXPECT_EQ(decoded->problems, in_memory->problems);
    EXPECT_FALSE(decoded->processes[0].complete);
  }
  // Cut exactly between sections: a shorter run, nothing to report.
  const std::vector<uint8_t> whole_sections(bytes.begin(), bytes.begin() + last);
  Expected<cutrace::Run> shorter = parse_bytes(whole_sections);
  ASSERT_TRUE(shorter) << shorter.error;
  EXPECT_EQ(shorter->launches.size(), 2u);
  EXPECT_TRUE(shorter->problems.empty()) << all_problems(shorter->problems);
  fs::remove_all(dir);
}

// Every prefix of a run, from 0 bytes on: a value or an error, never a crash or a read past
// the end.
TEST(Run, EveryPrefixParsesOrFailsCleanly) {
  cutrace::Run run = sample_run();
  run.launches.resize(1);
  const std::vector<uint8_t> bytes = encode_run(run);
  for (size_t n = 0; n < bytes.size(); ++n) {
    const std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + n);
    Expected<cutrace::Run> back = parse_bytes(cut);
    if (n < 16) {
      EXPECT_FALSE(back) << n;
      continue;
    }
    ASSERT_TRUE(back) << n << ": " << back.error;
    EXPECT_TRUE(back->end_json.empty()) << n;
  }
}

std::vector<uint8_t> raw_section(const char (&tag)[5], const std::vector<uint8_t> &body) {
  std::vector<uint8_t> out(16 + body.size());
  std::copy(tag, tag + 4, out.begin());
  put64(out, 8, body.size());
  std::copy(body.begin(), body.end(), out.begin() + 16);
  return out;
}

TEST(Run, UnknownSectionsAreSkipped) {
  const cutrace::Run run = sample_run();
  std::vector<uint8_t> bytes = encode_run(run);
  const size_t after_run_section = 16 + 16 + run.run_json.size();
  const std::vector<uint8_t> middle = raw_section("XTRA", std::vector<uint8_t>(100, 0xEE));
  bytes.insert(bytes.begin() + after_run_section, middle.begin(), middle.end());
  const std::vector<uint8_t> tail = raw_section("ZZZZ", {});
  bytes.insert(bytes.end(), tail.begin(), tail.end());
  Expected<cutrace::Run> back = parse_bytes(bytes);
  ASSERT_TRUE(back) << back.error;
  EXPECT_TRUE(back->problems.empty()) << all_problems(back->problems);
  expect_same_run(run, *back);

  // The file reader skips them by seeking.
  const fs::path dir = test_support::scratch_dir("cutrace_run_test_");
  const std::string path = (dir / "extra.ctrace").string();
  write_bytes(path, bytes);
  Expected<cutrace::Run> from_file = read_run_file(path);
  ASSERT_TRUE(from_file) << from_file.error;
  expect_same_run(run, *from_file);
  fs::remove_all(dir);
}

TEST(Run, ShortLaunchSectionIsSkippedWithAProblem) {
  cutrace::Run run = sample_run();
  run.end_json.clear();
  std::vector<uint8_t> bytes = encode_run(run);
  const std::vector<uint8_t> stub = raw_section("LNCH", std::vector<uint8_t>(63, 0));
  bytes.insert(bytes.end(), stub.begin(), stub.end());
  Expected<cutrace::Run> back = parse_bytes(bytes);
  ASSERT_TRUE(back) << back.error;
  EXPECT_EQ(back->launches.size(), 3u);
  ASSERT_EQ(back->problems.size(), 1u);
  EXPECT_EQ(back->problems[0], "launch section 8 is too short; skipped");
}

// ---- Delta-coded launch sections (CUTRACE_COMPRESS=delta) ----

// A run written with delta-coded launches reads back exactly as the plain one, from memory and
// from a file streamed by the writer; each coded section is smaller and flagged.
TEST(RunDelta, CodedLaunchesReadBackAsThePlainRun) {
  const cutrace::Run run = sample_run();
  std::vector<uint8_t> coded_bytes = encode_run(run);
  for (const LaunchRecord &l : run.launches) { // swap each plain LNCH for its coded twin
    const std::vector<uint8_t> plain = encode_launch_section(l);
    const std::vector<uint8_t> coded = encode_launch_section(l, LaunchCoding::delta);
    EXPECT_EQ(read32(&coded[4]), 1u); // flag bit 0
    EXPECT_LT(coded.size(), plain.size());
    EXPECT_EQ(read64(&coded[16 + 64]), l.buffer.size()); // the buffer's own size
    auto at = std::search(coded_bytes.begin(), coded_bytes.end(), plain.begin(), plain.end());
    ASSERT_NE(at, coded_bytes.end());
    at = coded_bytes.erase(at, at + std::ptrdiff_t(plain.size()));
    coded_bytes.insert(at, coded.begin(), coded.end());
  }
  Expected<cutrace::Run> back = parse_bytes(coded_bytes);
  ASSERT_TRUE(back) << back.error;
  EXPECT_TRUE(back->problems.empty()) << all_problems(back->problems);
  expect_same_run(run, *back);

  const fs::path dir = test_support::scratch_dir("cutrace_run_test_");
  const std::string path = (dir / "coded.ctrace").string();
  Expected<RunWriter *> created = RunWriter::create(path, run.run_json);
  ASSERT_TRUE(created) << created.error;
  std::unique_ptr<RunWriter> w(*created);
  w->set_launch_coding(LaunchCoding::delta);
  for (const std::string &d : run.devices)
    ASSERT_FALSE(w->add_device(d));
  for (const std::string &m : run.maps)
    ASSERT_FALSE(w->add_map(m));
  for (const LaunchRecord &l : run.launches)
    ASSERT_FALSE(w->add_launch(l));
  ASSERT_FALSE(w->finish(run.end_json));
  EXPECT_EQ(file_bytes(path), coded_bytes);
  Expected<cutrace::Run> from_file = read_run_file(path);
  ASSERT_TRUE(from_file) << from_file.error;
  expect_same_run(run, *from_file);
  fs::remove_all(dir);
}

// The coding is lossless for any bytes, whatever their length: random buffers of 0..67 bytes.
TEST(RunDelta, AnyBytesRoundTrip) {
  std::mt19937 rng(23);
  for (size_t n = 0; n < 68; ++n) {
    LaunchRecord l;
    l.buffer.resize(n);
    for (uint8_t &b : l.buffer)
      b = uint8_t(rng());
    const std::vector<uint8_t> section = encode_launch_section(l, LaunchCoding::delta);
    cutrace::Run run;
    run.maps = {"{}"};
    std::vector<uint8_t> bytes = encode_run(run);
    bytes.insert(bytes.end(), section.begin(), section.end());
    Expected<cutrace::Run> back = parse_bytes(bytes);
    ASSERT_TRUE(back) << back.error;
    ASSERT_EQ(back->launches.size(), 1u) << n << all_problems(back->problems);
    EXPECT_EQ(back->launches[0].buffer, l.buffer) << n;
  }
}

// A damaged code (cut, padded, or claiming a size it cannot hold) skips that launch with a
// problem; the launches around it are kept.
TEST(RunDelta, DamagedCodeSkipsItsLaunchWithAProblem) {
  cutrace::Run run = sample_run();
  run.end_json.clear();
  const std::vector<uint8_t> good = encode_launch_section(run.launches[0], LaunchCoding::delta);
  std::vector<std::vector<uint8_t>> damaged;
  std::vector<uint8_t> cut(good.begin(), good.end() - 3); // the code runs out
  put64(cut, 8, cut.size() - 16);
  damaged.push_back(cut);
  std::vector<uint8_t> padded = good; // bytes left over
  padded.push_back(0);
  put64(padded, 8, padded.size() - 16);
  damaged.push_back(padded);
  std::vector<uint8_t> huge = good; // a size no code of this length can produce
  put64(huge, 16 + 64, uint64_t(1) << 40);
  damaged.push_back(huge);
  std::vector<uint8_t> unknown = good; // a flag this version does not know
  put32(unknown, 4, 3);
  damaged.push_back(unknown);
  for (size_t k = 0; k < damaged.size(); ++k) {
    std::vector<uint8_t> bytes = encode_run(run);
    bytes.insert(bytes.end(), damaged[k].begin(), damaged[k].end());
    const std::vector<uint8_t> after = encode_launch_section(run.launches[1], LaunchCoding::delta);
    bytes.insert(bytes.end(), after.begin(), after.end());
    Expected<cutrace::Run> back = parse_bytes(bytes);
    ASSERT_TRUE(back) << k << ": " << back.error;
    EXPECT_EQ(back->launches.size(), 4u) << k;
    ASSERT_EQ(back->problems.size(), 1u) << k;
    EXPECT_NE(back->problems[0].find(k == 3 ? "unknown flags" : "delta-coded buffer is damaged"),
              std::string::npos)
        << back->problems[0];
    expect_same_launch(back->launches.back(), run.launches[1], k);
  }
}

TEST(Run, LaunchNamingMissingMapIsAnError) {
  cutrace::Run run = sample_run();
  run.launches[2].map = 2; // two maps
  Expected<cutrace::Run> back = parse_bytes(encode_run(run));
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error, "a launch names decode map 2 of 2");

  const fs::path dir = test_support::scratch_dir("cutrace_run_test_");
  const std::string path = (dir / "bad.ctrace").string();
  write_bytes(path, encode_run(run));
  Expected<cutrace::Run> from_file = read_run_file(path);
  ASSERT_FALSE(from_file);
  EXPECT_EQ(from_file.error, path + ": a launch names decode map 2 of 2");
  fs::remove_all(dir);
}

TEST(Run, UnknownContainerVersionIsAnError) {
  std::vector<uint8_t> bytes = encode_run(sample_run());
  put32(bytes, 8, 3);
  Expected<cutrace::Run> back = parse_bytes(bytes);
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error, ".ctrace version 3 is not supported (expected 1 or 2)");
  bytes[0] = 'X';
  EXPECT_EQ(parse_bytes(bytes).error, "not a .ctrace file (bad magic)");
}

// ---- Decoded runs on one axis ----

RunTrace decoded(const cutrace::Run &run) {
  Expected<RunTrace> t = decode_run(run, "run.ctrace");
  EXPECT_TRUE(t) << t.error;
  return t ? *t : RunTrace{};
}

constexpr uint64_t kT0 = 1'765'000'000'000'000'000ull; // a globaltimer reading, ns

cutrace::Run one_device_run(bool aligned, int64_t host_minus_gpu_ns) {
  cutrace::Run run;
  run.run_json = kRunJson;
  run.devices = {device_json(0, aligned, host_minus_gpu_ns)};
  run.maps = {map_json(1, 4, Clock::clock64, "gemm"), map_json(1, 4, Clock::clock64, "softmax")};
  return run;
}

TEST(RunDecode, LaunchesOrderedByBeginOnOneAxis) {
  cutrace::Run run = one_device_run(false, 0);
  // Drained out of order (a later stream finished first): sequence says the order of recording.
  run.launches = {timed_launch(1, 0, 0, kT0 + 9000, 1000), timed_launch(0, 0, 1, kT0, 5000),
                  timed_launch(0, 0, 2, kT0 + 4000, 2000)};
  const RunTrace t = decoded(run);
  ASSERT_EQ(t.launches.size(), 3u);
  EXPECT_EQ(t.origin_ns, kT0);
  EXPECT_EQ(t.launches[0].sequence, 1u);
  EXPECT_EQ(t.launches[1].sequence, 2u);
  EXPECT_EQ(t.launches[2].sequence, 0u);
  const double begins[3] = {0, 4000, 9000}, ends[3] = {5000, 6000, 10000};
  for (size_t i = 0; i < 3; ++i) {
    const RunLaunch &l = t.launches[i];
    EXPECT_EQ(l.begin_ns, begins[i]) << i;
    EXPECT_EQ(l.end_ns, ends[i]) << i;
    EXPECT_EQ(l.offset_ns, begins[i]) << i; // where the trace's own zero lies
    EXPECT_EQ(l.trace.origin_ns, kT0 + uint64_t(begins[i])) << i;
    EXPECT_TRUE(l.trace.ok()) << all_problems(l.trace.problems);
    ASSERT_EQ(l.trace.rows.size(), 1u);
    // The work slice sits at offset + its own time: 100 ns after the row start at 2 GHz.
    EXPECT_EQ(l.offset_ns + l.trace.rows[0].slices[0].begin_ns, begins[i] + 100) << i;
  }
  EXPECT_EQ(t.maps[t.launches[2].map].kernel, "softmax");
  EXPECT_EQ(t.launches[0].stream, 0x7f00'0000'1000u);
}

TEST(RunDecode, HostAlignedAxisShiftsEachDeviceByItsOffset) {
  cutrace::Run run;
  run.run_json = kRunJson;
  const int64_t offset0 = 1'000'000'000, offset1 = -2'500'000'123;
  run.devices = {device_json(0, true, offset0), device_json(1, true, offset1)};
  run.maps = {map_json(1, 4, Clock::clock64, "gemm")};
  // GPU 1's globaltimer reads 3.5 s ahead of GPU 0's: on the host axis its launch begins 377 ns
  // after GPU 0's.
  const uint64_t gpu0_begin = kT0, gpu1_begin = kT0 + 3'500'000'500;
  const uint64_t host0 = kT0 + offset0; // GPU 0's launch begin in host time
  run.launches = {timed_launch(0, 1, 0, gpu1_begin, 2000, host0 + 100),
                  timed_launch(0, 0, 1, gpu0_begin, 5000, host0 - 10'000)};
  const RunTrace t = decoded(run);
  EXPECT_TRUE(t.host_aligned);
  EXPECT_TRUE(t.problems.empty()) << all_problems(t.problems);
  EXPECT_EQ(t.origin_ns, host0 - 10'000); // the earliest enqueue
  ASSERT_EQ(t.launches.size(), 2u);
  const RunLaunch &a = t.launches[0], &b = t.launches[1];
  EXPECT_EQ(t.devices[a.device].index, 0u);
  EXPECT_EQ(a.begin_ns, 10'000.0);
  EXPECT_EQ(a.end_ns, 15'000.0);
  EXPECT_EQ(a.enqueue_ns, 0.0);
  EXPECT_EQ(t.devices[b.device].index, 1u);
  EXPECT_EQ(b.begin_ns, 10'377.0);
  EXPECT_EQ(b.end_ns, 12'377.0);
  EXPECT_EQ(b.enqueue_ns, 10'100.0);
  EXPECT_EQ(t.devices[b.device].host_minus_gpu_ns, offset1);
  EXPECT_EQ(t.devices[b.device].alignment_error_ns, 480u);
  EXPECT_EQ(t.devices[b.device].name, "NVIDIA H200");
  EXPECT_EQ(t.devices[b.device].clock_khz, 1'980'000u);
  EXPECT_EQ(t.devices[b.device].sms, 132u);
}

TEST(RunDecode, UnalignedDeviceKeepsRawGlobaltimer) {
  cutrace::Run run;
  run.run_json = kRunJson;
  run.devices = {device_json(0, true, 1'000'000'000), device_json(1, false, 0)};
  run.maps = {map_json(1, 4, Clock::clock64, "gemm")};
  run.launches = {timed_launch(0, 0, 0, kT0 + 3000, 1000, kT0 + 999'000'000),
                  timed_launch(0, 1, 1, kT0, 1000, kT0 + 999'000'000)};
  RunTrace t = decoded(run);
  EXPECT_FALSE(t.host_aligned);
  EXPECT_EQ(t.origin_ns, kT0);
  ASSERT_EQ(t.launches.size(), 2u);
  EXPECT_EQ(t.launches[0].begin_ns, 0.0);
  EXPECT_EQ(t.launches[1].begin_ns, 3000.0); // not shifted by device 0's offset
  EXPECT_FALSE(t.launches[0].enqueue_ns);    // host times have no place on this axis
  EXPECT_FALSE(t.launches[1].enqueue_ns);

  // A device the run never described is not aligned either.
  run.devices.pop_back();
  t = decoded(run);
  EXPECT_FALSE(t.host_aligned);
  ASSERT_EQ(t.devices.size(), 2u);
  EXPECT_EQ(t.devices[1].index, 1u);
  EXPECT_FALSE(t.devices[1].aligned);
  EXPECT_EQ(t.launches[1].begin_ns, 3000.0);
}

// The start-up alignment can fail on a GPU busy for more than the probe's 2 s (a long kernel
// queued ahead of it); the run's end measures again, and the device takes that offset.
TEST(RunDecode, ADeviceNotAlignedAtStartTakesTheOffsetMeasuredAtTheEnd) {
  cutrace::Run run = one_device_run(false, 0);
  const int64_t offset = 1'000'000'000;
  run.launches = {timed_launch(0, 0, 0, kT0, 1000, kT0 + offset - 500)};
  run.end_json = R"({"devices_at_end":[{"index":0,"host_minus_gpu_ns":1000000000,)"
                 R"("alignment_error_ns":700}]})";
  RunTrace t = decoded(run);
  EXPECT_TRUE(t.host_aligned);
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_TRUE(t.devices[0].aligned);
  EXPECT_TRUE(t.devices[0].aligned_at_end_only);
  EXPECT_EQ(t.devices[0].host_minus_gpu_ns, offset);
  EXPECT_EQ(t.devices[0].alignment_error_ns, 700u);
  EXPECT_EQ(t.devices[0].drift_ns, 0);
  ASSERT_EQ(t.launches.size(), 1u);
  EXPECT_EQ(t.launches[0].begin_ns, 500.0); // after its enqueue, on the host axis
  EXPECT_NE(run_summary(t).find("(measured at the run's end only: its drift over the run is "
                                "not known)"),
            std::string::npos)
      << run_summary(t);
  // Aligned at start: the end only widens the bound, as before.
  run = one_device_run(true, offset);
  run.launches = {timed_launch(0, 0, 0, kT0, 1000)};
  run.end_json = R"({"devices_at_end":[{"index":0,"host_minus_gpu_ns":1000000300,)"
                 R"("alignment_error_ns":700}]})";
  t = decoded(run);
  EXPECT_FALSE(t.devices[0].aligned_at_end_only);
  EXPECT_EQ(t.devices[0].host_minus_gpu_ns, offset);
  EXPECT_EQ(t.devices[0].drift_ns, 300);
}

// A map that does not parse costs its launches their detail, never their place: the run keeps
// every launch of the file, on the axis by its row headers, with a problem saying why.
TEST(RunDecode, BadMapIsAProblemAndItsLaunchesStayWithoutDetail) {
  cutrace::Run run = one_device_run(true, 0);
  run.maps[1] = "{\"kernel\": ";
  run.launches = {timed_launch(0, 0, 0, kT0, 1000), timed_launch(1, 0, 1, kT0 + 2000, 1000),
                  timed_launch(0, 0, 2, kT0 + 4000, 1000)};
  const RunTrace t = decoded(run);
  ASSERT_EQ(t.launches.size(), 3u);
  EXPECT_EQ(t.launches[0].map, 0u);
  EXPECT_TRUE(t.launches[0].trace.ok()) << all_problems(t.launches[0].trace.problems);
  const RunLaunch &bad = t.launches[1];
  EXPECT_EQ(bad.map, 1u);
  EXPECT_FALSE(bad.detail);
  EXPECT_EQ(bad.begin_ns, 2000.0);
  EXPECT_EQ(bad.end_ns - bad.begin_ns, 1000.0);
  ASSERT_EQ(bad.trace.problems.size(), 1u);
  EXPECT_NE(bad.trace.problems[0].find("decode map 1 could not be read"), std::string::npos);
  EXPECT_EQ(t.launches[2].begin_ns, 4000.0);
  EXPECT_TRUE(t.launches[2].trace.ok());
  ASSERT_EQ(t.problems.size(), 1u);
  EXPECT_EQ(t.problems[0].rfind("decode map 1: ", 0), 0u) << t.problems[0];
  EXPECT_NE(t.problems[0].find("its launches are shown without detail"), std::string::npos);
}

// Progress is reported for every launch of the file, so the last report is always N/N.
TEST(RunDecode, ProgressCountsEveryLaunchUpToTheLast) {
  cutrace::Run run = one_device_run(true, 0);
  run.maps[1] = "not a map";
  for (uint32_t i = 0; i < 101; ++i) // the last launch is the one whose map cannot be read
    run.launches.push_back(timed_launch(i == 100 ? 1 : 0, 0, i, kT0 + 2000 * i, 1000));
  std::vector<size_t> reported;
  Expected<RunTrace> t = decode_run(run, "run.ctrace", {}, [&](size_t done, size_t of) {
    EXPECT_EQ(of, 101u);
    reported.push_back(done);
  });
  ASSERT_TRUE(t) << t.error;
  EXPECT_EQ(t->launches.size(), 101u);
  ASSERT_EQ(reported.size(), 101u);
  EXPECT_EQ(reported.back(), 101u);
}

// A launch whose buffer cannot be decoded, or whose rows never started, has no globaltimer
// reading: it must not drag the axis to 0.
TEST(RunDecode, LaunchWithoutATimeDoesNotMoveTheAxis) {
  for (const bool aligned : {false, true}) {
    cutrace::Run run = one_device_run(aligned, 1000);
    run.launches = {timed_launch(0, 0, 0, kT0, 1000), timed_launch(0, 0, 1, kT0 + 2000, 1000),
                    timed_launch(0, 0, 2, kT0 + 4000, 1000)};
    run.launches[1].buffer[0] ^= 0xFF; // bad magic
    BufferBuilder never_ran(1, 1, 4);
    run.launches[2].buffer = compacted(never_ran.bytes);
    const RunTrace t = decoded(run);
    ASSERT_EQ(t.launches.size(), 3u);
    EXPECT_EQ(t.origin_ns, kT0 + (aligned ? 1000 : 0)) << aligned;
    for (const RunLaunch &l : t.launches) {
      EXPECT_GE(l.begin_ns, 0.0) << aligned;
      EXPECT_LE(l.end_ns, 2000.0) << aligned;
    }
    EXPECT_EQ(t.launches.size(), 3u);
  }
}

TEST(RunDecode, EndSectionCountsReachRunProcess) {
  cutrace::Run run = one_device_run(true, 0);
  run.launches = {timed_launch(0, 0, 0, kT0, 1000)};
  run.end_json = kEndJson;
  RunTrace t = decoded(run);
  ASSERT_EQ(t.processes.size(), 1u);
  const RunProcess &p = t.processes[0];
  EXPECT_EQ(p.program, "train");
  EXPECT_EQ(p.pid, 4242u);
  EXPECT_EQ(p.host, "node7");
  EXPECT_EQ(p.rank, 3);
  EXPECT_EQ(p.launches, "first:4,every:250");
  EXPECT_EQ(p.kernels, "*");
  EXPECT_EQ(p.file, "run.ctrace");
  EXPECT_TRUE(p.complete);
  using Counts = std::pair<uint64_t, uint64_t>;
  EXPECT_EQ(p.kernel_launches.size(), 2u);
  EXPECT_EQ(p.kernel_launches.at("gemm"), Counts(300, 5));
  EXPECT_EQ(p.kernel_launches.at("softmax"), Counts(300, 0));
  EXPECT_EQ(p.pool_waits, 2u);
  EXPECT_EQ(p.pool_skipped, 1u);
  EXPECT_EQ(p.disk_skipped, 7u);

  run.end_json.clear(); // the program did not finish writing
  t = decoded(run);
  EXPECT_FALSE(t.processes[0].complete);
  EXPECT_TRUE(t.processes[0].kernel_launches.empty());

  run.end_json = "[1, 2]";
  Expected<RunTrace> bad = decode_run(run);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error, "the run's END section is not a JSON object");
  run.end_json.clear();
  run.devices[0] = "not json";
  bad = decode_run(run);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error, "the run's DEV section is not a JSON object");
}

// ---- Several processes on one axis ----

// Process `pid` (rank `rank`) on one aligned GPU, with the kernels `kernels` (one map each) and
// one launch per (map, globaltimer begin).
RunTrace process_run(uint64_t pid, int rank, bool aligned, int64_t host_minus_gpu_ns,
                     const std::vector<std::string> &kernels,
                     const std::vector<std::pair<uint32_t, uint64_t>> &launches) {
  cutrace::Run run;
  run.run_json = R"({"program":"train","pid":)" + std::to_string(pid) + R"(,"rank":)" +
                 std::to_string(rank) + "}";
  run.devices = {device_json(0, aligned, host_minus_gpu_ns)};
  for (const std::string &k : kernels)
    run.maps.push_back(map_json(1, 4, Clock::clock64, k));
  for (size_t i = 0; i < launches.size(); ++i)
    run.launches.push_back(timed_launch(launches[i].first, 0, i, launches[i].second, 1000));
  return decoded(run);
}

TEST(MergeRuns, TwoProcessesOnOneAxis) {
  // Rank 0's GPU clock reads 5 us behind the host, rank 1's 20 us ahead.
  const RunTrace rank0 = process_run(100, 0, true, 5000, {"gemm"}, {{0, kT0}, {0, kT0 + 3000}});
  const RunTrace rank1 = process_run(200, 1, true, -20'000, {"softmax", "norm"},
                                     {{0, kT0 + 20'500}, {1, kT0 + 22'000}});
  ASSERT_EQ(rank0.origin_ns, kT0 + 5000);
  ASSERT_EQ(rank1.origin_ns, kT0 + 500);
  const RunTrace merged = merge_runs({rank0, rank1});
  EXPECT_TRUE(merged.host_aligned);
  EXPECT_TRUE(merged.problems.empty()) << all_problems(merged.problems);
  EXPECT_EQ(merged.origin_ns, kT0 + 500);
  ASSERT_EQ(merged.processes.size(), 2u);
  EXPECT_EQ(merged.processes[0].pid, 100u);
  EXPECT_EQ(merged.processes[1].pid, 200u);
  EXPECT_EQ(merged.processes[1].rank, 1);
  ASSERT_EQ(merged.devices.size(), 2u);
  EXPECT_EQ(merged.devices[0].process, 0u);
  EXPECT_EQ(merged.devices[1].process, 1u);
  ASSERT_EQ(merged.maps.size(), 3u);

  // On the host axis (ns after host time kT0): rank 1 softmax at 500 and norm at 2000, rank 0
  // gemm at 5000 and 8000.
  struct Expect {
    uint64_t pid;
    const char *kernel;
    double begin;
  };
  const Expect order[4] = {
      {200, "softmax", 0}, {200, "norm", 1500}, {100, "gemm", 4500}, {100, "gemm", 7500}};
  ASSERT_EQ(merged.launches.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    const RunLaunch &l = merged.launches[i];
    EXPECT_EQ(merged.processes[merged.devices[l.device].process].pid, order[i].pid) << i;
    EXPECT_EQ(merged.maps[l.map].kernel, order[i].kernel) << i;
    EXPECT_EQ(l.begin_ns, order[i].begin) << i;
    EXPECT_EQ(l.end_ns, order[i].begin + 1000) << i;
    EXPECT_EQ(l.offset_ns, order[i].begin) << i;
  }
}

TEST(MergeRuns, UnalignedRunsSayTheyMayBeShifted) {
  const RunTrace aligned = process_run(100, 0, true, 0, {"gemm"}, {{0, kT0}});
  const RunTrace unaligned = process_run(200, 1, false, 0, {"gemm"}, {{0, kT0 + 700}});
  const RunTrace merged = merge_runs({aligned, unaligned});
  EXPECT_FALSE(merged.host_aligned);
  ASSERT_EQ(merged.problems.size(), 1u);
  EXPECT_NE(merged.problems[0].find("may be shifted against each other"), std::string::npos);
  ASSERT_EQ(merged.launches.size(), 2u);
  EXPECT_EQ(merged.launches[1].begin_ns, 700.0);

  // Both aligned: nothing to say.
  EXPECT_TRUE(merge_runs({aligned, aligned}).problems.empty());
  // One run alone keeps its own axis, aligned or not, without the warning.
  EXPECT_TRUE(merge_runs({unaligned}).problems.empty());
}

} // namespace
} // namespace cutrace
