// check_ctrace: verifies the invariants of recorded .ctrace files (docs/FORMAT.md) and prints a
// short report per file. Exit status 1 on any violation, 2 on bad usage.
//
//   check_ctrace [--expect NAME=COUNT]... [--expect-dropped N] [--expect-flows N] FILE...
//
// Checked for every file: the container and map parse and decode without problems; in every
// row, records are valid and their timestamps non-decreasing and inside the row's start/end;
// the row header names its own (CTA, group); all rows of a CTA report one SM; the dropped count
// equals attempted - max_events; closed rows that dropped nothing have no incomplete slices
// (a row that dropped events lost the ENDs of its open ranges); no unmatched ends.
// NAME=COUNT compares the number of slices plus instants named NAME over the whole file.
#include "../support/buffer_builder.h"
#include <cutrace/ctrace.h>
#include <cutrace/run.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

using namespace cutrace;

struct Expectations {
  std::map<std::string, uint64_t> counts;
  std::optional<uint64_t> dropped;
  std::optional<uint64_t> flows;
};

struct Checker {
  std::string file;
  int violations = 0;

  void fail(const std::string &what) {
    if (violations < 20)
      std::printf("  VIOLATION %s\n", what.c_str());
    ++violations;
  }
};

using cutrace::test_support::read32;
using cutrace::test_support::read64;

// Row r's header and first record, in either layout (docs/FORMAT.md); the compact layout's
// record counts are trusted here only as far as the buffer reaches.
struct RawRow {
  const uint8_t *header, *records;
  uint32_t capacity;
};
std::vector<RawRow> raw_rows(const BufferHeader &h, const std::vector<uint8_t> &buf) {
  std::vector<RawRow> rows;
  const uint8_t *base = buf.data() + kBufferHeaderBytes;
  if (h.layout == BufferLayout::full) {
    const uint64_t n =
        std::min<uint64_t>(h.num_rows, (buf.size() - kBufferHeaderBytes) / h.row_stride_bytes);
    for (uint64_t r = 0; r < n; ++r)
      rows.push_back(
          {base + r * h.row_stride_bytes, base + r * h.row_stride_bytes + 64, h.max_events});
    return rows;
  }
  const uint64_t n =
      std::min<uint64_t>(h.num_rows, (buf.size() - kBufferHeaderBytes) / kRowHeaderBytes);
  const uint8_t *records = base + n * kRowHeaderBytes, *end = buf.data() + buf.size();
  for (uint64_t r = 0; r < n; ++r) {
    const uint32_t count = read32(base + r * kRowHeaderBytes + 60);
    if (uint64_t(end - records) / h.record_bytes() < count)
      break;
    rows.push_back({base + r * kRowHeaderBytes, records, count});
    records += uint64_t(count) * h.record_bytes();
  }
  return rows;
}

// Walks the raw records of every row; independent of the decoder's own checks.
void check_raw_rows(const BufferHeader &h, const std::vector<uint8_t> &buf, Checker &c) {
  const std::vector<RawRow> rows = raw_rows(h, buf);
  for (uint64_t r = 0; r < rows.size(); ++r) {
    const uint8_t *row = rows[r].header;
    const bool started = read32(row) == kRowStartTag, closed = read32(row + 32) == kRowEndTag;
    const uint64_t lo = h.clock == Clock::clock64 ? read64(row + 16) : read64(row + 8);
    const uint64_t hi = h.clock == Clock::clock64 ? read64(row + 48) : read64(row + 40);
    uint64_t prev = lo;
    const std::string where = "row " + std::to_string(r);
    for (uint32_t i = 0; i < rows[r].capacity; ++i) {
      const uint8_t *rec = rows[r].records + uint64_t(i) * h.record_bytes();
      const uint32_t head = read32(rec);
      if (head == 0)
        break;
      if (!started)
        c.fail(where + ": record without a start header");
      uint64_t ts = prev;
      if (h.version >= kRecordFormatVersion) {
        // 8-byte slots: RANGE (bit 31; bit 30 wide, its times in the next slot) or kinds 1-5 in
        // bits 30..28, bits 27..16 zero; the second word of a narrow RANGE, BEGIN, END and
        // INSTANT is the low 32 bits of the time.
        const uint32_t kind = head >> kKindShift;
        const bool wide = (head & (kRangeBit | kWideRange)) == (kRangeBit | kWideRange);
        if (!(head & kRangeBit) && (kind == 0 || kind > 5 || (head & 0x0FFF0000u) != 0))
          c.fail(where + " record " + std::to_string(i) + ": invalid head word");
        if (wide && i + 1 < rows[r].capacity) {
          rec += h.record_bytes(), ++i;
          ts = prev + uint32_t(read32(rec + 4) - uint32_t(prev)); // its end

        } else if ((head & kRangeBit) || kind <= 3) {
          ts = prev + uint32_t(read32(rec + 4) - uint32_t(prev));
        }
      } else {
        ts = read64(rec + 8);
        if ((head >> kRecordKindShift) == 0 || (head & 0x3FFF0000u) != 0)
          c.fail(where + " record " + std::to_string(i) + ": invalid head word");
      }
      if (ts < prev)
        c.fail(where + " record " + std::to_string(i) + ": time goes backwards");
      if (closed && ts > hi)
        c.fail(where + " record " + std::to_string(i) + ": after the row's end");
      prev = ts;
    }
    if (closed) {
      const uint32_t attempted = read32(row + 36), dropped = read32(row + 56);
      if (dropped != (attempted > h.max_events ? attempted - h.max_events : 0))
        c.fail(where + ": dropped " + std::to_string(dropped) + " but attempted " +
               std::to_string(attempted));
      if (hi < lo)
        c.fail(where + ": ends before it starts");
    }
  }
}

void check_launch(const Ctrace *raw, const Expectations &expect, Checker &c) {
  Expected<Trace> trace = decode_ctrace(*raw);
  if (!trace)
    return c.fail(trace.error);
  const Trace &t = *trace;
  for (const std::string &p : t.problems)
    c.fail("decoder: " + p);
  if (t.rows.empty())
    return;
  check_raw_rows(t.header, raw->buffer, c);

  std::map<std::string, uint64_t> counts;
  uint64_t started = 0, closed = 0, stored = 0, dropped = 0, incomplete = 0, unmatched = 0;
  double ghz_min = 1e9, ghz_max = 0, t0 = 1e300, t1 = 0, e0 = 1e300, e1 = -1e300;
  std::map<uint32_t, uint32_t> cta_sm;
  std::map<std::string, uint32_t> rate_sources;
  for (const Row &row : t.rows) {
    if (!row.started)
      continue;
    ++started;
    closed += row.closed;
    stored += row.stored;
    dropped += row.dropped;
    unmatched += row.unmatched_ends;
    ++rate_sources[rate_source_name(row.ghz_source)];
    ghz_min = std::min(ghz_min, row.ghz);
    ghz_max = std::max(ghz_max, row.ghz);
    t0 = std::min(t0, double(int64_t(row.start_ns - t.origin_ns)));
    t1 = std::max(t1, double(int64_t((row.closed ? row.end_ns : row.start_ns) - t.origin_ns)));
    auto [it, fresh] = cta_sm.emplace(row.cta, row.smid);
    if (!fresh && it->second != row.smid)
      c.fail("CTA " + std::to_string(row.cta) + " reports SMs " + std::to_string(it->second) +
             " and " + std::to_string(row.smid));
    for (const Slice &s : row.slices) {
      ++counts[s.name];
      e0 = std::min(e0, s.begin_ns);
      e1 = std::max(e1, s.end_ns);
      incomplete += s.incomplete;
      // A row that dropped events lost the ENDs past its capacity: its open slices are expected.
      if (s.incomplete && row.closed && row.dropped == 0)
        c.fail("row " + std::to_string(row.index) + ": slice " + s.name +
               " left open in a closed row that dropped nothing");
      if (s.end_cycles < s.begin_cycles)
        c.fail("row " + std::to_string(row.index) + ": slice " + s.name + " ends before it begins");
    }
    for (const Instant &i : row.instants) {
      ++counts[i.name];
      e0 = std::min(e0, i.ns);
      e1 = std::max(e1, i.ns);
    }
  }
  if (unmatched)
    c.fail(std::to_string(unmatched) + " unmatched ENDs");

  std::printf("  kernel %s, grid %ux%ux%u, block %ux%ux%u, %s, launch %u\n", t.kernel.c_str(),
              t.header.grid[0], t.header.grid[1], t.header.grid[2], t.header.block[0],
              t.header.block[1], t.header.block[2],
              t.header.clock == Clock::clock64 ? "clock64" : "globaltimer", raw->launch_index);
  std::printf("  rows %u, started %llu, closed %llu, records %llu, dropped %llu, incomplete %llu\n",
              t.header.num_rows, (unsigned long long)started, (unsigned long long)closed,
              (unsigned long long)stored, (unsigned long long)dropped,
              (unsigned long long)incomplete);
  std::printf("  clock %.3f..%.3f GHz, span %.1f us, flows %zu (backward %u, unpaired %u)\n",
              ghz_min, ghz_max, (t1 - t0) / 1000.0, t.flows.size(), t.backward_flows,
              t.unpaired_flows);
  if (e1 >= e0) // the kernel's length as its events show it: first begin to last end
    std::printf("  events span %.3f us (first begin to last end)\n", (e1 - e0) / 1000.0);
  std::printf("  clock sources:");
  for (const auto &[source, n] : rate_sources)
    std::printf(" %s %u", source.c_str(), n);
  std::printf(" (device attribute %u kHz)\n", t.header.device_clock_khz);
  for (const auto &[name, n] : counts)
    std::printf("  %-12s %llu\n", name.c_str(), (unsigned long long)n);

  for (const auto &[name, want] : expect.counts)
    if (counts[name] != want)
      c.fail(name + ": " + std::to_string(counts[name]) + " events, expected " +
             std::to_string(want));
  if (expect.dropped && dropped != *expect.dropped)
    c.fail("dropped " + std::to_string(dropped) + ", expected " + std::to_string(*expect.dropped));
  if (expect.flows && t.flows.size() != *expect.flows)
    c.fail("flows " + std::to_string(t.flows.size()) + ", expected " +
           std::to_string(*expect.flows));
}

// A single-launch file is checked against the expectations; a run file (docs/FORMAT.md, "Runs")
// launch by launch for the invariants only, since its launches are of several kernels.
void check_file(const std::string &path, const Expectations &expect, Checker &c) {
  Expected<Run> run = read_run_file(path);
  if (!run)
    return c.fail(run.error);
  for (const std::string &p : run->problems)
    c.fail("run: " + p);
  const bool single = run->run_json.empty();
  if (!single)
    std::printf("  run: %zu launches, %zu maps, %zu devices, %s\n", run->launches.size(),
                run->maps.size(), run->devices.size(),
                run->end_json.empty() ? "NO END SECTION" : "complete");
  if (!single && run->end_json.empty())
    c.fail("the run has no END section (the program did not exit normally?)");
  for (const std::string &d : run->devices)
    std::printf("  device %s\n", d.c_str());
  for (const LaunchRecord &l : run->launches) {
    Ctrace one;
    one.map_json = run->maps[l.map];
    std::copy(l.grid, l.grid + 3, one.grid);
    std::copy(l.block, l.block + 3, one.block);
    one.launch_index = l.launch_index;
    one.buffer = l.buffer;
    check_launch(&one, single ? expect : Expectations{}, c);
  }
}

int usage() {
  std::fprintf(stderr, "usage: check_ctrace [--expect NAME=COUNT]... [--expect-dropped N] "
                       "[--expect-flows N] FILE.ctrace...\n");
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  Expectations expect;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--expect" || arg == "--expect-dropped" || arg == "--expect-flows") &&
        i + 1 < argc) {
      const std::string value = argv[++i];
      if (arg == "--expect") {
        const size_t eq = value.find('=');
        if (eq == std::string::npos)
          return usage();
        expect.counts[value.substr(0, eq)] = std::strtoull(value.c_str() + eq + 1, nullptr, 10);
      } else if (arg == "--expect-dropped") {
        expect.dropped = std::strtoull(value.c_str(), nullptr, 10);
      } else {
        expect.flows = std::strtoull(value.c_str(), nullptr, 10);
      }
    } else if (!arg.empty() && arg[0] == '-') {
      return usage();
    } else {
      files.push_back(arg);
    }
  }
  if (files.empty())
    return usage();
  int violations = 0;
  for (const std::string &file : files) {
    std::printf("%s\n", file.c_str());
    Checker c{file};
    check_file(file, expect, c);
    std::printf("  %s (%d violations)\n", c.violations ? "FAIL" : "OK", c.violations);
    violations += c.violations;
  }
  return violations ? 1 : 0;
}
