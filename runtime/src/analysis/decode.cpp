// Buffer -> rows of slices and instants (rules and layouts in docs/FORMAT.md, "Decoding").
//
// Three passes: read every row's header and records (bounds-checked), settle each row's
// cycles->ns rate (measured, else SM-pooled, else a launch-wide fallback), then match BEGIN/END
// into slices on the per-CTA cycle axis and the global nanosecond axis (relative to the
// earliest row start, so doubles keep ns precision).
#include <cutrace/decode.h>

#include "../format/bytes.h"
#include "../format/record_slots.h"
#include "records.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

namespace cutrace {

const char *rate_source_name(RateSource source) {
  switch (source) {
  case RateSource::measured:
    return "measured";
  case RateSource::sm_pooled:
    return "SM-pooled";
  case RateSource::launch_median:
    return "launch median";
  case RateSource::launch_pooled:
    return "launch-pooled";
  case RateSource::device_attribute:
    return "device attribute";
  case RateSource::default_rate:
    return "default";
  case RateSource::override_rate:
    return "override";
  }
  return "?";
}

namespace {

using records::Event;
using records::EventKind;

// The line a row's clock64 values are placed on in the global view: ns since the trace's origin
// = since(ref_ns, origin) + offset_ns + (cycles - ref_cycles) / ghz. Every row of a CTA shares
// one (its rows run on one SM clock), so times across them keep their cycle order.
struct ClockLine {
  uint64_t ref_ns = 0, ref_cycles = 0; // a raw header pair (globaltimer ns, clock64)
  double offset_ns = 0;                // the fit's correction to ref_ns over all the CTA's pairs
};

struct RawRow {
  Row row;
  std::vector<Event> events; // the row's records with their full times, in stored order
  ClockLine line;            // row.ghz is its slope
};

std::string row_prefix(uint32_t r) { return "row " + std::to_string(r) + ": "; }

// Where one row's header and records are; `capacity` records at most are read.
struct RowSpan {
  const uint8_t *header;
  const uint8_t *records;
  uint32_t capacity;
};

// Which CTA, group and slice row `r` is (docs/FORMAT.md, "Rows of a CTA").
void place_row(const DecodeMap &map, const BufferHeader &h, const RowPlan &plan, uint32_t r,
               Row &row) {
  row.index = r;
  row.cta = uint32_t(h.cta_of_row(r));
  row.row_in_cta = r % h.num_groups;
  const RowPlace place = plan.place(row.row_in_cta);
  row.group = place.group;
  row.slice = place.slice;
  row.first_thread = place.first_thread;
  row.label = row_label(map, place);
}

// Bytes 24-31 of a start header: the CTA and the row within it (the group index, when no group
// of the kernel is sliced: the wording stays the one of those buffers).
void check_row_identity(const uint8_t *p, const Row &row, bool sliced,
                        std::vector<std::string> &problems) {
  const uint32_t cta = bytes::u32(p + 24), row_in_cta = bytes::u32(p + 28);
  if (cta == row.cta && row_in_cta == row.row_in_cta)
    return;
  const char *what = sliced ? " row " : " group ";
  problems.push_back(row_prefix(row.index) + "header names CTA " + std::to_string(cta) + what +
                     std::to_string(row_in_cta) + ", but the row belongs to CTA " +
                     std::to_string(row.cta) + what + std::to_string(row.row_in_cta) +
                     (sliced ? " (" + row.label + ")" : ""));
}

// Reads one row's headers and its records up to the first unwritten record.
RawRow read_row(const DecodeMap &map, const BufferHeader &h, const RowPlan &plan,
                const RowSpan &span, uint32_t r, std::vector<std::string> &problems) {
  const uint8_t *p = span.header;
  RawRow raw;
  Row &row = raw.row;
  place_row(map, h, plan, r, row);

  const uint32_t start_tag = bytes::u32(p);
  if (start_tag == kRowStartTag) {
    row.started = true;
    row.smid = bytes::u32(p + 4);
    row.start_ns = bytes::u64(p + 8);
    row.start_cycles = bytes::u64(p + 16);
    check_row_identity(p, row, map.any_sliced(), problems);
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

  // Up to the first never-written record: the writer stopped (or trapped) there.
  row.stored = written_slots(span.records, span.capacity, h.version);
  records::RowRecords rec =
      records::read_records(span.records, row.stored, h.version,
                            h.clock == Clock::clock64 ? row.start_cycles : row.start_ns);
  raw.events = std::move(rec.events);
  row.invalid_records = rec.invalid;
  if (row.invalid_records)
    problems.push_back(row_prefix(r) + std::to_string(row.invalid_records) + " invalid records");
  if (rec.lost_begin)
    problems.push_back(row_prefix(r) + std::to_string(rec.lost_begin) +
                       " ranges whose times were cut by the row's capacity (a narrow RANGE "
                       "without its EXT, a wide one without its times): not shown");
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

// Δclock64 / Δglobaltimer between two (ns, cycles) pairs, when the span is long enough to be
// meaningful and the result is a clock rate some GPU could have.
std::optional<double> rate_between(uint64_t ns0, uint64_t cyc0, uint64_t ns1, uint64_t cyc1,
                                   const DecodeOptions &options) {
  if (ns1 <= ns0 || cyc1 <= cyc0 || ns1 - ns0 < options.min_measure_span_ns)
    return std::nullopt;
  const double ghz = double(cyc1 - cyc0) / double(ns1 - ns0);
  if (ghz < 0.05 || ghz > 20) // not a clock rate any GPU has: a corrupt pair
    return std::nullopt;
  return ghz;
}

// One header pair: globaltimer ns and clock64 read together.
struct Pair {
  uint64_t ns, cycles;
};

// The header pairs of the started rows in [rows, rows + count): starts, and ends of closed rows.
std::vector<Pair> header_pairs(const RawRow *rows, size_t count) {
  std::vector<Pair> pairs;
  for (const RawRow *raw = rows; raw != rows + count; ++raw) {
    if (!raw->row.started)
      continue;
    pairs.push_back({raw->row.start_ns, raw->row.start_cycles});
    if (raw->row.closed)
      pairs.push_back({raw->row.end_ns, raw->row.end_cycles});
  }
  return pairs;
}

// The rate between the earliest and the latest of `pairs` (by ns), when measurable.
std::optional<double> pooled_rate(const std::vector<Pair> &pairs, const DecodeOptions &options) {
  if (pairs.empty())
    return std::nullopt;
  auto by_ns = [](const Pair &a, const Pair &b) { return a.ns < b.ns; };
  const Pair first = *std::min_element(pairs.begin(), pairs.end(), by_ns);
  const Pair last = *std::max_element(pairs.begin(), pairs.end(), by_ns);
  return rate_between(first.ns, first.cycles, last.ns, last.cycles, options);
}

// Rows [rows, rows + count) are one CTA's. They share an SM clock when every started row says
// the same SM (a corrupt header may not): then one rate and one line serve them all.
bool one_sm(const RawRow *rows, size_t count) {
  const RawRow *first = nullptr;
  for (const RawRow *raw = rows; raw != rows + count; ++raw)
    if (raw->row.started) {
      if (first && first->row.smid != raw->row.smid)
        return false;
      first = first ? first : raw;
    }
  return true;
}

// The CTA's own rate (the earliest and the latest of all its rows' header pairs), or each row's
// own when its rows do not share an SM.
void measure_cta(RawRow *rows, size_t count, const DecodeOptions &options) {
  const bool shared = one_sm(rows, count);
  const std::optional<double> cta =
      shared ? pooled_rate(header_pairs(rows, count), options) : std::nullopt;
  for (RawRow *raw = rows; raw != rows + count; ++raw) {
    const std::optional<double> ghz =
        shared ? cta : pooled_rate(header_pairs(raw, 1), options);
    if (ghz && raw->row.started) {
      raw->row.ghz = *ghz;
      raw->row.ghz_source = RateSource::measured;
      raw->row.ghz_measured = true;
    }
  }
}

// clock64 counts per SM, so the header pairs of every row that ran on one SM lie on one line:
// the earliest and the latest pair span far more than any single short row.
std::map<uint32_t, double> sm_pooled_ghz(const std::vector<RawRow> &rows,
                                         const DecodeOptions &options) {
  std::map<uint32_t, std::pair<Pair, Pair>> span; // smid -> (earliest, latest)
  for (const RawRow &raw : rows) {
    const Row &r = raw.row;
    if (!r.started)
      continue;
    std::vector<Pair> pairs{{r.start_ns, r.start_cycles}};
    if (r.closed)
      pairs.push_back({r.end_ns, r.end_cycles});
    auto [it, fresh] = span.try_emplace(r.smid, pairs[0], pairs[0]);
    for (const Pair &p : pairs) {
      if (p.ns < it->second.first.ns)
        it->second.first = p;
      if (p.ns > it->second.second.ns)
        it->second.second = p;
    }
  }
  std::map<uint32_t, double> ghz;
  for (const auto &[smid, ends] : span)
    if (std::optional<double> g = rate_between(ends.first.ns, ends.first.cycles, ends.second.ns,
                                               ends.second.cycles, options))
      ghz[smid] = *g;
  return ghz;
}

// Every SM of a GPU runs at one clock: when each row is too short to measure (globaltimer ticks
// in 32 ns steps on an H200), the sums over many short rows still give the rate, provided the
// summed span is long (10x the single-row minimum).
std::optional<double> launch_pooled_ghz(const std::vector<RawRow> &rows,
                                        const DecodeOptions &options) {
  uint64_t ns = 0, cycles = 0;
  for (const RawRow &raw : rows) {
    const Row &r = raw.row;
    if (r.started && r.closed && r.end_ns > r.start_ns && r.end_cycles > r.start_cycles)
      ns += r.end_ns - r.start_ns, cycles += r.end_cycles - r.start_cycles;
  }
  DecodeOptions pooled = options;
  pooled.min_measure_span_ns = 10 * options.min_measure_span_ns;
  return rate_between(0, 0, ns, cycles, pooled);
}

// Best source first: its CTA's pairs (all rows of a CTA get one rate), its SM's pooled pairs,
// the launch's median, the launch's short rows pooled, the device's peak clock from the buffer
// header, the default.
void assign_rates(std::vector<RawRow> &rows, const BufferHeader &h, const DecodeOptions &options) {
  if (options.ghz_override) {
    for (RawRow &raw : rows)
      raw.row.ghz = *options.ghz_override, raw.row.ghz_source = RateSource::override_rate;
    return;
  }
  const size_t per_cta = std::max<uint32_t>(h.num_groups, 1);
  for (size_t first = 0; first < rows.size(); first += per_cta)
    measure_cta(&rows[first], std::min(per_cta, rows.size() - first), options);
  std::vector<double> measured;
  for (const RawRow &raw : rows)
    if (raw.row.ghz_measured)
      measured.push_back(raw.row.ghz);
  const std::map<uint32_t, double> pooled = sm_pooled_ghz(rows, options);
  std::pair<double, RateSource> fallback{options.default_ghz, RateSource::default_rate};
  if (!measured.empty()) {
    std::nth_element(measured.begin(), measured.begin() + measured.size() / 2, measured.end());
    fallback = {measured[measured.size() / 2], RateSource::launch_median};
  } else if (std::optional<double> ghz = launch_pooled_ghz(rows, options)) {
    fallback = {*ghz, RateSource::launch_pooled};
  } else if (h.device_clock_khz != 0) {
    fallback = {h.device_clock_khz / 1e6, RateSource::device_attribute};
  }
  for (RawRow &raw : rows) {
    if (raw.row.ghz_measured)
      continue;
    auto it = raw.row.started ? pooled.find(raw.row.smid) : pooled.end();
    if (it != pooled.end())
      raw.row.ghz = it->second, raw.row.ghz_source = RateSource::sm_pooled;
    else
      raw.row.ghz = fallback.first, raw.row.ghz_source = fallback.second;
  }
}

// One event time on both axes: raw SM cycles and globaltimer ns since the trace's origin.
struct Stamp {
  uint64_t cycles;
  double ns;
};

// Differences of u64 counters first, then double: the absolute globaltimer (~1.8e18 ns) would
// round to 256 ns in a double.
double since(uint64_t t, uint64_t origin) { return double(int64_t(t - origin)); }

// A corrupt timestamp or rate can give a product beyond int64, and converting that is undefined.
int64_t saturated_int64(double v) {
  if (!(v == v))
    return 0;
  if (v <= -9.2e18)
    return INT64_MIN;
  return v >= 9.2e18 ? INT64_MAX : int64_t(v);
}

// A record's time in both views, on its row's clock line.
class Stamper {
public:
  Stamper(const RawRow &raw, Clock clock, uint64_t origin)
      : line_(raw.line), clock_(clock), origin_(origin), ghz_(raw.row.ghz),
        ref_ns_(since(line_.ref_ns, origin) + line_.offset_ns), ns_per_cycle_(1.0 / raw.row.ghz) {}
  Stamp operator()(uint64_t ts) const {
    if (clock_ == Clock::clock64)
      return {ts, ref_ns_ + double(int64_t(ts - line_.ref_cycles)) * ns_per_cycle_};
    const double ns = since(ts, origin_);
    return {line_.ref_cycles + uint64_t(saturated_int64((ns - ref_ns_) * ghz_)), ns};
  }

private:
  const ClockLine &line_;
  Clock clock_;
  uint64_t origin_;
  double ghz_, ref_ns_, ns_per_cycle_;
};

// Each row's clock line: one per CTA whose rows share an SM, else the row's own start pair. The
// CTA's line passes through its earliest pair; when its rate was measured from its pairs, the
// line moves by their mean residual, which spreads globaltimer's tick (32 ns on an H200) over
// them. A rate from elsewhere (a fallback, an override) keeps the earliest pair exact.
void assign_lines(RawRow *rows, size_t count) {
  const std::vector<Pair> pairs = header_pairs(rows, count);
  if (pairs.empty())
    return;
  if (!one_sm(rows, count)) {
    for (RawRow *raw = rows; raw != rows + count; ++raw)
      raw->line = {raw->row.start_ns, raw->row.start_cycles, 0};
    return;
  }
  const Pair ref = *std::min_element(pairs.begin(), pairs.end(),
                                     [](const Pair &a, const Pair &b) { return a.ns < b.ns; });
  const RawRow *started = rows;
  while (!started->row.started)
    ++started;
  const double ghz = started->row.ghz; // the CTA's one rate
  double residual = 0;
  if (started->row.ghz_measured)
    for (const Pair &p : pairs)
      residual += double(int64_t(p.ns - ref.ns)) - double(int64_t(p.cycles - ref.cycles)) / ghz;
  for (RawRow *raw = rows; raw != rows + count; ++raw)
    raw->line = {ref.ns, ref.cycles, residual / double(pairs.size())};
}

// Times with the markers' own cost taken out (DecodeOptions::marker_cost). The row's events are
// swept in time order; each time moves earlier by what the markers before it cost since the
// row's outermost open slice began (so a slice's length loses the cost of its own begin and of
// every marker inside it, slices keep their nesting, and a time outside every slice stays as
// recorded). Never before the previous time. Returns {ts, begin_ts} per event.
std::vector<std::pair<uint64_t, uint64_t>> without_marker_cost(const std::vector<Event> &events,
                                                               const MarkerCost &cost) {
  struct Point {
    uint64_t ts;
    size_t event;
    bool range_begin; // the begin of a RANGE record (its ts is the record's begin_ts)
  };
  std::vector<Point> points;
  points.reserve(events.size() * 2);
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].kind == EventKind::range)
      points.push_back({events[i].begin_ts, i, true});
    points.push_back({events[i].ts, i, false});
  }
  // Opening points first among equal times, so what begins at a time holds what is there.
  auto opens = [&](const Point &p) {
    return p.range_begin || events[p.event].kind == EventKind::begin;
  };
  std::stable_sort(points.begin(), points.end(), [&](const Point &a, const Point &b) {
    return a.ts != b.ts ? a.ts < b.ts : opens(a) && !opens(b);
  });
  std::vector<std::pair<uint64_t, uint64_t>> out(events.size());
  for (size_t i = 0; i < events.size(); ++i)
    out[i] = {events[i].ts, events[i].begin_ts};
  double shift = 0;
  int64_t depth = 0;
  uint64_t previous = 0;
  for (const Point &p : points) {
    const EventKind kind = events[p.event].kind;
    const uint64_t whole = uint64_t(std::llround(shift));
    uint64_t at = p.ts > whole ? p.ts - whole : 0;
    at = std::max(at, std::min(previous, p.ts)); // in order, and never later than recorded
    previous = at;
    (p.range_begin ? out[p.event].second : out[p.event].first) = at;
    if (kind != EventKind::range)
      out[p.event].second = out[p.event].first;
    if (p.range_begin || kind == EventKind::begin)
      ++depth;
    else if (kind == EventKind::range || kind == EventKind::end)
      --depth;
    shift += p.range_begin ? cost.range_begin
                           : kind == EventKind::range ? cost.range_end : cost.event;
    if (depth <= 0)
      depth = 0, shift = 0;
  }
  return out;
}

struct Open {
  uint32_t site;
  size_t slice; // index into Row::slices
};

// The per-CTA view's zero: the earliest BEGIN or instant of any row of the CTA, in raw cycles.
uint64_t cta_origin_cycles(const RawRow *rows, size_t count, Clock clock, uint64_t origin) {
  uint64_t zero = UINT64_MAX;
  for (const RawRow *raw = rows; raw != rows + count; ++raw) {
    const Stamper stamp(*raw, clock, origin);
    for (const Event &ev : raw->events)
      if (ev.kind != EventKind::end)
        zero = std::min(zero, stamp(ev.begin_ts).cycles);
  }
  return zero;
}

// Closes a slice at `at`, never before it began: records out of time order (a corrupt row) would
// give a negative length on either axis. Returns false when the end had to be clamped.
bool close_at(Slice &s, uint64_t end_cycles, double end_ns) {
  s.end_cycles = std::max(s.begin_cycles, end_cycles);
  s.end_ns = std::max(s.begin_ns, end_ns);
  return end_cycles >= s.begin_cycles && end_ns >= s.begin_ns;
}

// BEGIN/END matching per lane with a stack; cycles are stored relative to `zero` (the CTA's first
// event). A slice is created at its BEGIN, so slices come out in BEGIN order (records are in
// time order per row) without sorting, and an END only fills in where it ended. Returns how many
// slices would have ended before they began.
uint32_t build_slices(const DecodeMap &map, Clock clock, uint64_t origin, uint64_t zero,
                      const std::optional<MarkerCost> &cost, RawRow &raw) {
  if (cost) {
    const std::vector<std::pair<uint64_t, uint64_t>> times = without_marker_cost(raw.events, *cost);
    for (size_t i = 0; i < times.size(); ++i)
      raw.events[i].ts = times[i].first, raw.events[i].begin_ts = times[i].second;
  }
  Row &row = raw.row;
  auto rel = [zero](uint64_t c) { return c > zero ? c - zero : 0; };
  const uint32_t unknown_lane = uint32_t(map.lanes.size());
  std::vector<std::vector<Open>> open(map.lanes.size() + 1);
  const Stamper stamp(raw, clock, origin);
  Stamp last = clock == Clock::clock64 ? stamp(row.start_cycles) : stamp(row.start_ns);
  std::map<uint32_t, std::string> unknown_names;
  auto name_of = [&](uint32_t id, const Site *site) -> const std::string & {
    if (site)
      return site->name;
    auto [it, added] = unknown_names.try_emplace(id);
    if (added)
      it->second = "site#" + std::to_string(id);
    return it->second;
  };
  size_t slices = 0, instants = 0;
  uint32_t reversed = 0;
  bool ranges = false; // RANGE records arrive at their end: slices then need sorting by begin
  for (const Event &ev : raw.events) {
    slices += ev.kind == EventKind::begin || ev.kind == EventKind::range;
    instants += ev.kind == EventKind::instant;
    ranges |= ev.kind == EventKind::range;
  }
  row.slices.reserve(slices);
  row.instants.reserve(instants);
  for (const Event &ev : raw.events) {
    const Site *site = map.site(ev.site);
    if (!site)
      ++row.unknown_sites;
    const uint32_t lane = site ? site->lane : unknown_lane;
    const Stamp at = stamp(ev.ts);
    last = at;
    std::vector<Open> &stack = open[lane];
    if (ev.kind == EventKind::range) { // closed already: its begin comes from the record
      const Stamp from = stamp(ev.begin_ts);
      Slice &s = row.slices.emplace_back();
      s.site = ev.site;
      s.name = name_of(ev.site, site);
      s.lane = lane;
      s.payload = ev.payload;
      s.begin_cycles = rel(from.cycles);
      s.begin_ns = from.ns;
      reversed += !close_at(s, rel(at.cycles), at.ns);
      s.incomplete = false;
    } else if (ev.kind == EventKind::begin) {
      stack.push_back({ev.site, row.slices.size()});
      Slice &s = row.slices.emplace_back();
      s.site = ev.site;
      s.name = name_of(ev.site, site);
      s.lane = lane;
      s.payload = ev.payload;
      s.begin_cycles = s.end_cycles = rel(at.cycles);
      s.begin_ns = s.end_ns = at.ns;
      s.incomplete = true;
    } else if (ev.kind == EventKind::end) {
      // The innermost open BEGIN of this site closes; a mismatched one in between stays open.
      auto it = std::find_if(stack.rbegin(), stack.rend(),
                             [&](const Open &o) { return o.site == ev.site; });
      if (it == stack.rend()) {
        ++row.unmatched_ends;
        continue;
      }
      Slice &closed = row.slices[it->slice];
      reversed += !close_at(closed, rel(at.cycles), at.ns);
      closed.incomplete = false;
      stack.erase(std::next(it).base());
    } else {
      Instant &i = row.instants.emplace_back();
      i.site = ev.site;
      i.name = name_of(ev.site, site);
      i.lane = lane;
      i.payload = ev.payload;
      i.cycles = rel(at.cycles);
      i.ns = at.ns;
    }
  }
  if (row.closed) {
    const Stamp end = clock == Clock::clock64 ? stamp(row.end_cycles) : stamp(row.end_ns);
    if (end.cycles >= last.cycles)
      last = end;
  }
  // Still open at the row's end: incomplete, ending at the row's last timestamp.
  for (const std::vector<Open> &stack : open)
    for (const Open &o : stack)
      reversed += !close_at(row.slices[o.slice], rel(last.cycles), last.ns);
  // Slices in begin order, an enclosing one before those it holds (as BEGIN records give them).
  if (ranges)
    std::stable_sort(row.slices.begin(), row.slices.end(), [](const Slice &a, const Slice &b) {
      return a.begin_cycles != b.begin_cycles ? a.begin_cycles < b.begin_cycles
                                              : a.end_cycles > b.end_cycles;
    });
  return reversed;
}

void check_against_map(const DecodeMap &map, const BufferHeader &h, const RowPlan &plan, Trace &t) {
  // A launch's rows hold at least the map's max_events: more when the host sized them at launch
  // (docs/FORMAT.md, "Row capacity"), never fewer.
  if (h.max_events < map.max_events)
    t.problems.push_back("decode map says max_events " + std::to_string(map.max_events) +
                         ", buffer header says only " + std::to_string(h.max_events));
  if (!map.any_sliced() && map.groups.size() != h.num_groups)
    t.problems.push_back("decode map has " + std::to_string(map.groups.size()) +
                         " groups, buffer header says " + std::to_string(h.num_groups));
  if (map.any_sliced() && plan.rows_per_cta() != h.num_groups)
    t.problems.push_back(
        "buffer header says " + std::to_string(h.num_groups) + " rows per CTA, but the decode " +
        "map's " + std::to_string(map.groups.size()) + " groups give " +
        std::to_string(plan.rows_per_cta()) + " for blocks of (" + std::to_string(h.block[0]) +
        "," + std::to_string(h.block[1]) + "," + std::to_string(h.block[2]) +
        ") threads (docs/FORMAT.md, \"Rows of a CTA\"); rows past the map's are unnamed");
  if (map.clock != h.clock)
    t.problems.push_back("decode map and buffer header disagree on the clock kind");
}

// The rows of a full-layout buffer: at row_stride_bytes each. Never past `size`.
std::vector<RowSpan> full_row_spans(const BufferHeader &h, const uint8_t *buffer, size_t size,
                                    std::vector<std::string> &problems) {
  const uint64_t complete_rows = (size - kBufferHeaderBytes) / h.row_stride_bytes;
  uint64_t num_rows = h.num_rows;
  if (complete_rows < num_rows) {
    problems.push_back("buffer truncated: " + std::to_string(size) + " bytes hold " +
                       std::to_string(complete_rows) + " of " + std::to_string(h.num_rows) +
                       " rows; the rest is not decoded");
    num_rows = complete_rows;
  }
  std::vector<RowSpan> spans(num_rows);
  for (uint64_t r = 0; r < num_rows; ++r) {
    const uint8_t *row = buffer + kBufferHeaderBytes + r * h.row_stride_bytes;
    spans[r] = {row, row + kRowHeaderBytes, h.max_events};
  }
  return spans;
}

// The rows of a compact buffer: all row headers, then each row's stored records (bytes 60-63 of
// its header) back to back. A count that runs past `size` or over max_events ends the rows there.
std::vector<RowSpan> compact_row_spans(const BufferHeader &h, const uint8_t *buffer, size_t size,
                                       std::vector<std::string> &problems) {
  const uint64_t header_rows = (size - kBufferHeaderBytes) / kRowHeaderBytes;
  const uint64_t num_rows = std::min<uint64_t>(h.num_rows, header_rows);
  // Records follow all h.num_rows headers: when some headers are cut off, none are present.
  const uint8_t *records =
      buffer +
      std::min<uint64_t>(size, kBufferHeaderBytes + uint64_t(h.num_rows) * kRowHeaderBytes);
  const uint8_t *const end = buffer + size;
  std::vector<RowSpan> spans;
  spans.reserve(num_rows);
  for (uint64_t r = 0; r < num_rows; ++r) {
    const uint8_t *row = buffer + kBufferHeaderBytes + r * kRowHeaderBytes;
    const uint32_t count = bytes::u32(row + 60);
    if (count > h.max_events || uint64_t(end - records) / h.record_bytes() < count) {
      problems.push_back(row_prefix(uint32_t(r)) + "compact record count " + std::to_string(count) +
                         " runs past the buffer; rows from here on " + "are not decoded");
      return spans;
    }
    spans.push_back({row, records, count});
    records += uint64_t(count) * h.record_bytes();
  }
  if (num_rows < h.num_rows)
    problems.push_back("buffer truncated: " + std::to_string(size) + " bytes hold " +
                       std::to_string(num_rows) + " of " + std::to_string(h.num_rows) +
                       " row headers; the rest is not decoded");
  return spans;
}

std::vector<RowSpan> row_spans(const BufferHeader &h, const uint8_t *buffer, size_t size,
                               std::vector<std::string> &problems) {
  return h.layout == BufferLayout::compact ? compact_row_spans(h, buffer, size, problems)
                                           : full_row_spans(h, buffer, size, problems);
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
  const RowPlan plan(map, h.block);
  check_against_map(map, h, plan, t);

  std::vector<RawRow> raw;
  for (const RowSpan &span : row_spans(h, buffer, size, t.problems))
    raw.push_back(read_row(map, h, plan, span, uint32_t(raw.size()), t.problems));
  assign_rates(raw, h, options);
  t.origin_ns = UINT64_MAX;
  for (const RawRow &rr : raw)
    if (rr.row.started)
      t.origin_ns = std::min(t.origin_ns, rr.row.start_ns);
  if (t.origin_ns == UINT64_MAX)
    t.origin_ns = 0;
  // Per-CTA view: cycles since the CTA's first event (all rows of a CTA share one SM clock).
  t.rows.reserve(raw.size());
  for (size_t first = 0; first < raw.size(); first += h.num_groups) {
    const size_t count = std::min<size_t>(h.num_groups, raw.size() - first);
    assign_lines(&raw[first], count);
    const uint64_t zero = cta_origin_cycles(&raw[first], count, h.clock, t.origin_ns);
    for (size_t r = first; r < first + count; ++r) {
      if (const uint32_t reversed =
              build_slices(map, h.clock, t.origin_ns, zero, options.marker_cost, raw[r]))
        t.problems.push_back(row_prefix(raw[r].row.index) + std::to_string(reversed) +
                             " slices end before they begin (records out of time order); "
                             "shown with no length");
      t.rows.push_back(std::move(raw[r].row));
    }
  }
  t.marker_cost = options.marker_cost;
  match_flows(map, t);
  return t;
}

} // namespace cutrace
