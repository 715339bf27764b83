// Buffer -> rows of slices and instants (SPEC §4; layouts in docs/FORMAT.md).
//
// Three passes: read every row's header and records (bounds-checked), settle each row's
// cycles->ns rate (measured, else a trace-wide fallback), then match BEGIN/END into slices on
// the per-CTA cycle axis and the global nanosecond axis.
#include <cutrace/decode.h>

#include "bytes.h"

#include <algorithm>

namespace cutrace {

namespace {

struct RawEvent {
  RecordKind kind;
  uint32_t site;
  int32_t payload;
  uint64_t ts; // clock64 or globaltimer, per the buffer's clock kind
};

struct RawRow {
  Row row;
  std::vector<RawEvent> events;
};

std::string row_prefix(uint32_t r) { return "row " + std::to_string(r) + ": "; }

// Reads one row's headers and its records up to the first unwritten record.
RawRow read_row(const BufferHeader &h, const uint8_t *p, uint32_t r,
                std::vector<std::string> &problems) {
  RawRow raw;
  Row &row = raw.row;
  row.index = r;
  row.cta = r / h.num_groups;
  row.group = r % h.num_groups;

  const uint32_t start_tag = bytes::u32(p);
  if (start_tag == kRowStartTag) {
    row.started = true;
    row.smid = bytes::u32(p + 4);
    row.start_ns = bytes::u64(p + 8);
    row.start_cycles = bytes::u64(p + 16);
    const uint32_t cta = bytes::u32(p + 24), group = bytes::u32(p + 28);
    if (cta != row.cta || group != row.group)
      problems.push_back(row_prefix(r) + "header names CTA " + std::to_string(cta) + " group " +
                         std::to_string(group) + ", but the row belongs to CTA " +
                         std::to_string(row.cta) + " group " + std::to_string(row.group));
  } else if (start_tag != 0) {
    problems.push_back(row_prefix(r) + "bad start tag");
  }

  const uint32_t end_tag = bytes::u32(p + 32);
  if (end_tag == kRowEndTag) {
    row.closed = true;
    row.attempted = bytes::u32(p + 36);
    row.end_ns = bytes::u64(p + 40);
    row.end_cycles = bytes::u64(p + 48);
    row.dropped = bytes::u32(p + 56);
    const uint32_t expected = row.attempted > h.max_events ? row.attempted - h.max_events : 0;
    if (row.dropped != expected)
      problems.push_back(row_prefix(r) + "dropped count " + std::to_string(row.dropped) +
                         " disagrees with " + std::to_string(row.attempted) + " attempted of " +
                         std::to_string(h.max_events));
  } else if (end_tag != 0) {
    problems.push_back(row_prefix(r) + "bad end tag");
  }

  const uint8_t *rec = p + kRowHeaderBytes;
  for (uint32_t i = 0; i < h.max_events; ++i, rec += kRecordBytes) {
    const uint32_t head = bytes::u32(rec);
    if (head == 0) // never written: the writer stopped (or trapped) here
      break;
    ++row.stored;
    const uint32_t kind = head >> kRecordKindShift;
    if (kind == 0 || (head & ~(3u << kRecordKindShift) & ~kSiteMask) != 0) {
      ++row.invalid_records;
      continue;
    }
    raw.events.push_back(
        {RecordKind(kind), head & kSiteMask, int32_t(bytes::u32(rec + 4)), bytes::u64(rec + 8)});
  }
  if (row.invalid_records)
    problems.push_back(row_prefix(r) + std::to_string(row.invalid_records) + " invalid records");
  if (!row.started && row.stored)
    problems.push_back(row_prefix(r) + "records without a start header");

  if (row.closed) {
    const uint32_t expected = std::min(row.attempted, h.max_events);
    if (row.stored != expected)
      problems.push_back(row_prefix(r) + std::to_string(row.stored) + " records present, end " +
                         "header says " + std::to_string(expected) + " were stored");
  } else {
    row.attempted = row.stored; // killed before its end: only what is in the buffer is known
  }
  return raw;
}

// Δclock64 / Δglobaltimer over the row's life, when the span is long enough to be meaningful.
std::optional<double> measured_ghz(const Row &row, const DecodeOptions &options) {
  if (!row.started || !row.closed || row.end_ns <= row.start_ns ||
      row.end_cycles <= row.start_cycles)
    return std::nullopt;
  const uint64_t span_ns = row.end_ns - row.start_ns;
  if (span_ns < options.min_measure_span_ns)
    return std::nullopt;
  const double ghz = double(row.end_cycles - row.start_cycles) / double(span_ns);
  if (ghz < 0.05 || ghz > 20) // not a clock rate any GPU has: a corrupt pair
    return std::nullopt;
  return ghz;
}

void assign_rates(std::vector<RawRow> &rows, const DecodeOptions &options) {
  std::vector<double> measured;
  for (RawRow &raw : rows) {
    std::optional<double> ghz =
        options.ghz_override ? std::nullopt : measured_ghz(raw.row, options);
    raw.row.ghz_measured = ghz.has_value();
    if (ghz) {
      raw.row.ghz = *ghz;
      measured.push_back(*ghz);
    }
  }
  // Rows too short to measure take the median of the others (same GPU, same launch).
  double fallback = options.ghz_override.value_or(options.default_ghz);
  if (!options.ghz_override && !measured.empty()) {
    std::nth_element(measured.begin(), measured.begin() + measured.size() / 2, measured.end());
    fallback = measured[measured.size() / 2];
  }
  for (RawRow &raw : rows)
    if (!raw.row.ghz_measured)
      raw.row.ghz = fallback;
}

// One event time on both axes: raw SM cycles and globaltimer ns.
struct Stamp {
  uint64_t cycles;
  double ns;
};

Stamp stamp(const Row &row, Clock clock, uint64_t ts) {
  const int64_t delta = int64_t(ts - (clock == Clock::clock64 ? row.start_cycles : row.start_ns));
  if (clock == Clock::clock64)
    return {ts, double(row.start_ns) + double(delta) / row.ghz};
  return {uint64_t(int64_t(row.start_cycles) + int64_t(double(delta) * row.ghz)), double(ts)};
}

struct Open {
  uint32_t site;
  int32_t payload;
  Stamp at;
};

// BEGIN/END matching per lane with a stack; raw cycles are made CTA-relative later.
void build_slices(const DecodeMap &map, Clock clock, RawRow &raw) {
  Row &row = raw.row;
  const uint32_t unknown_lane = uint32_t(map.lanes.size());
  std::vector<std::vector<Open>> open(map.lanes.size() + 1);
  Stamp last{row.start_cycles, double(row.start_ns)};
  auto name_of = [&](uint32_t id, const Site *site) {
    return site ? site->name : "site#" + std::to_string(id);
  };
  for (const RawEvent &ev : raw.events) {
    const Site *site = map.site(ev.site);
    if (!site)
      ++row.unknown_sites;
    const uint32_t lane = site ? site->lane : unknown_lane;
    const Stamp at = stamp(row, clock, ev.ts);
    last = at;
    std::vector<Open> &stack = open[lane];
    if (ev.kind == RecordKind::begin) {
      stack.push_back({ev.site, ev.payload, at});
    } else if (ev.kind == RecordKind::end) {
      // The innermost open BEGIN of this site closes; a mismatched one in between stays open.
      auto it = std::find_if(stack.rbegin(), stack.rend(),
                             [&](const Open &o) { return o.site == ev.site; });
      if (it == stack.rend()) {
        ++row.unmatched_ends;
        continue;
      }
      row.slices.push_back({ev.site, name_of(ev.site, site), lane, it->payload, it->at.cycles,
                            at.cycles, it->at.ns, at.ns, false});
      stack.erase(std::next(it).base());
    } else {
      row.instants.push_back({ev.site, name_of(ev.site, site), lane, ev.payload, at.cycles, at.ns});
    }
  }
  if (row.closed && row.end_cycles >= last.cycles)
    last = {row.end_cycles, double(row.end_ns)};
  for (uint32_t lane = 0; lane < open.size(); ++lane)
    for (const Open &o : open[lane])
      row.slices.push_back({o.site, name_of(o.site, map.site(o.site)), lane, o.payload, o.at.cycles,
                            last.cycles, o.at.ns, last.ns, true});
  std::stable_sort(row.slices.begin(), row.slices.end(),
                   [](const Slice &a, const Slice &b) { return a.begin_cycles < b.begin_cycles; });
}

// Per-CTA view: cycles since the CTA's first event (all rows of a CTA share one SM clock).
void make_cta_relative(std::vector<Row> &rows, uint32_t num_groups) {
  for (size_t first = 0; first < rows.size(); first += num_groups) {
    const size_t last = std::min(rows.size(), first + num_groups);
    uint64_t origin = UINT64_MAX;
    for (size_t r = first; r < last; ++r) {
      for (const Slice &s : rows[r].slices)
        origin = std::min(origin, s.begin_cycles);
      for (const Instant &i : rows[r].instants)
        origin = std::min(origin, i.cycles);
    }
    auto rel = [origin](uint64_t c) { return c > origin ? c - origin : 0; };
    for (size_t r = first; r < last; ++r) {
      for (Slice &s : rows[r].slices) {
        s.begin_cycles = rel(s.begin_cycles);
        s.end_cycles = rel(s.end_cycles);
      }
      for (Instant &i : rows[r].instants)
        i.cycles = rel(i.cycles);
    }
  }
}

void check_against_map(const DecodeMap &map, const BufferHeader &h, Trace &t) {
  if (map.max_events != h.max_events)
    t.problems.push_back("decode map says max_events " + std::to_string(map.max_events) +
                         ", buffer header says " + std::to_string(h.max_events));
  if (map.groups.size() != h.num_groups)
    t.problems.push_back("decode map has " + std::to_string(map.groups.size()) +
                         " groups, buffer header says " + std::to_string(h.num_groups));
  if (map.clock != h.clock)
    t.problems.push_back("decode map and buffer header disagree on the clock kind");
}

} // namespace

Trace decode(const DecodeMap &map, const uint8_t *buffer, size_t size,
             const DecodeOptions &options) {
  Trace t;
  t.kernel = map.kernel;
  Expected<BufferHeader> header = parse_buffer_header(buffer, size);
  if (!header) {
    t.problems.push_back(header.error);
    return t;
  }
  t.header = *header;
  const BufferHeader &h = t.header;
  check_against_map(map, h, t);

  // The header governs the layout; never read past `size`.
  const uint64_t complete_rows = (size - kBufferHeaderBytes) / h.row_stride_bytes;
  uint64_t num_rows = h.num_rows;
  if (complete_rows < num_rows) {
    t.problems.push_back("buffer truncated: " + std::to_string(size) + " bytes hold " +
                         std::to_string(complete_rows) + " of " + std::to_string(h.num_rows) +
                         " rows; the rest is not decoded");
    num_rows = complete_rows;
  }

  std::vector<RawRow> raw;
  raw.reserve(num_rows);
  for (uint32_t r = 0; r < num_rows; ++r)
    raw.push_back(
        read_row(h, buffer + kBufferHeaderBytes + uint64_t(r) * h.row_stride_bytes, r, t.problems));
  assign_rates(raw, options);
  for (RawRow &rr : raw) {
    build_slices(map, h.clock, rr);
    t.rows.push_back(std::move(rr.row));
  }
  make_cta_relative(t.rows, h.num_groups);
  match_flows(map, t);
  return t;
}

} // namespace cutrace
