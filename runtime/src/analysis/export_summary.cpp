// `trace-view --summary`: per event name durations, per group busy fraction, per SM span, and
// every count that says the trace is not the whole story (dropped, incomplete, unmatched).
#include "summary_table.h"

#include <cutrace/export.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace cutrace {

namespace {

// Nearest-rank percentile of sorted values: the smallest value with at least p% at or below it.
double percentile(const std::vector<double> &sorted, double p) {
  if (sorted.empty())
    return 0;
  const size_t rank = size_t(std::ceil(p / 100.0 * double(sorted.size())));
  return sorted[std::min(sorted.size(), std::max<size_t>(rank, 1)) - 1];
}

} // namespace

Durations durations_of(std::vector<double> values) {
  Durations d;
  if (values.empty())
    return d;
  std::sort(values.begin(), values.end());
  for (double v : values)
    d.total += v;
  d.mean = d.total / double(values.size());
  d.p50 = percentile(values, 50);
  d.p95 = percentile(values, 95);
  d.max = values.back();
  return d;
}

namespace {

// Length of the union of [begin, end) intervals clipped to [lo, hi].
double union_length(std::vector<std::pair<double, double>> spans, double lo, double hi) {
  std::sort(spans.begin(), spans.end());
  double total = 0, cur_b = 0, cur_e = -1;
  bool open = false;
  for (auto [b, e] : spans) {
    b = std::max(b, lo);
    e = std::min(e, hi);
    if (e <= b)
      continue;
    if (open && b <= cur_e) {
      cur_e = std::max(cur_e, e);
      continue;
    }
    if (open)
      total += cur_e - cur_b;
    cur_b = b, cur_e = e, open = true;
  }
  return open ? total + (cur_e - cur_b) : total;
}

struct NameSamples {
  bool instant = false;
  uint64_t count = 0, incomplete = 0;
  std::vector<double> cycles, ns;
};

// A started row's busy time: the union of its slices over its life.
double row_busy_ns(const Trace &t, const Row &r) {
  std::vector<std::pair<double, double>> spans;
  for (const Slice &sl : r.slices)
    spans.emplace_back(sl.begin_ns, sl.end_ns);
  return union_length(std::move(spans), row_start_ns(t, r), row_end_ns(t, r));
}

} // namespace

Spread spread_of(std::vector<double> values) {
  Spread s;
  if (values.empty())
    return s;
  std::sort(values.begin(), values.end());
  s.min = values.front();
  s.median = percentile(values, 50);
  s.max = values.back();
  return s;
}

namespace {

// Per sliced group and slice, sums over the rows added; then the spread over each group's slices.
class SliceSums {
public:
  void add(const DecodeMap &map, const Row &r, double busy_ns, double span_ns) {
    if (!r.sliced() || !r.started || r.group >= map.groups.size())
      return;
    SliceRowSummary &s = by_group_[r.group][r.slice];
    if (s.rows++ == 0)
      s.slice = r.slice, s.label = r.label;
    s.events += r.slices.size() + r.instants.size();
    s.busy_ns += busy_ns;
    s.span_ns += span_ns;
  }

  std::vector<SliceGroupSummary> finish(const DecodeMap &map) {
    std::vector<SliceGroupSummary> out;
    for (auto &[group, slices] : by_group_) {
      SliceGroupSummary g;
      g.group = group;
      g.name = map.groups[group].name;
      g.slice_threads = map.groups[group].slice_threads;
      g.first_thread = map.groups[group].first_thread;
      std::vector<double> busy, fraction, events;
      for (auto &[slice, s] : slices) {
        busy.push_back(s.busy_ns);
        fraction.push_back(s.busy_fraction());
        events.push_back(double(s.events));
        g.slices.push_back(std::move(s));
      }
      g.busy_ns = spread_of(std::move(busy));
      g.busy_fraction = spread_of(std::move(fraction));
      g.events = spread_of(std::move(events));
      out.push_back(std::move(g));
    }
    return out;
  }

private:
  std::map<uint32_t, std::map<uint32_t, SliceRowSummary>> by_group_; // group -> slice -> sums
};

} // namespace

std::vector<SliceGroupSummary> summarize_slices(const DecodeMap &map,
                                                const std::vector<const Trace *> &traces) {
  SliceSums sums;
  for (const Trace *t : traces)
    for (const Row &r : t->rows)
      if (r.sliced() && r.started)
        sums.add(map, r, row_busy_ns(*t, r), row_end_ns(*t, r) - row_start_ns(*t, r));
  return sums.finish(map);
}

TraceSummary summarize(const DecodeMap &map, const Trace &t) {
  TraceSummary s;
  s.kernel = t.kernel;
  s.marker_cost = t.marker_cost;
  s.header = t.header;
  s.flows = t.flows.size();
  s.backward_flows = t.backward_flows;
  s.unpaired_flows = t.unpaired_flows;
  s.problems = t.problems;
  s.completeness = completeness_of(t);

  std::map<std::pair<std::string, bool>, NameSamples> by_name; // (name, instant)
  std::map<uint32_t, GroupSummary> groups;
  std::map<uint32_t, std::set<uint32_t>> sm_ctas, group_ctas;
  SliceSums slice_sums;
  std::map<uint32_t, SmSummary> sms;
  for (const Row &r : t.rows) {
    s.dropped += r.dropped;
    s.unmatched_ends += r.unmatched_ends;
    s.unknown_sites += r.unknown_sites;
    s.invalid_records += r.invalid_records;
    for (const Slice &sl : r.slices) {
      NameSamples &n = by_name[{sl.name, false}];
      ++n.count;
      n.incomplete += sl.incomplete;
      s.incomplete += sl.incomplete;
      n.cycles.push_back(double(sl.end_cycles - sl.begin_cycles));
      n.ns.push_back(sl.end_ns - sl.begin_ns);
    }
    for (const Instant &i : r.instants) {
      NameSamples &n = by_name[{i.name, true}];
      ++n.count;
      n.instant = true;
    }
    s.slices += r.slices.size();
    s.instants += r.instants.size();
    if (!r.started)
      continue;
    ++s.rows_started;
    s.rows_killed += r.never_ended();
    if (r.ghz_measured) {
      s.min_ghz = s.rows_measured ? std::min(s.min_ghz, r.ghz) : r.ghz;
      s.max_ghz = s.rows_measured ? std::max(s.max_ghz, r.ghz) : r.ghz;
      ++s.rows_measured;
    }
    const double start = row_start_ns(t, r), end = row_end_ns(t, r);
    s.rates.push_back({r.index, r.cta, r.group, r.smid, r.ghz, r.ghz_source, r.label, r.sliced()});
    GroupSummary &g = groups[r.group];
    g.name = r.group < map.groups.size() ? map.groups[r.group].name : "#" + std::to_string(r.group);
    ++g.rows;
    group_ctas[r.group].insert(r.cta);
    g.span_ns += end - start;
    const double busy = row_busy_ns(t, r);
    g.busy_ns += busy;
    slice_sums.add(map, r, busy, end - start);

    auto [it, fresh] = sms.try_emplace(r.smid);
    SmSummary &sm = it->second;
    sm.smid = r.smid;
    sm.first_start_ns = fresh ? start : std::min(sm.first_start_ns, start);
    sm.last_end_ns = fresh ? end : std::max(sm.last_end_ns, end);
    sm_ctas[r.smid].insert(r.cta);
  }
  for (auto &[key, n] : by_name) {
    EventSummary e;
    e.name = key.first;
    e.instant = n.instant;
    e.count = n.count;
    e.incomplete = n.incomplete;
    e.cycles = durations_of(std::move(n.cycles));
    e.ns = durations_of(std::move(n.ns));
    s.events.push_back(std::move(e));
  }
  for (auto &[index, g] : groups) {
    g.ctas = uint32_t(group_ctas[index].size());
    s.groups.push_back(std::move(g));
  }
  s.slice_groups = slice_sums.finish(map);
  for (auto &[smid, sm] : sms) {
    sm.ctas = uint32_t(sm_ctas[smid].size());
    s.sms.push_back(sm);
  }
  return s;
}

namespace {

using namespace summary_table;

// Per row: the rate used for the global view and where it came from (FORMAT.md, "Decoding").
std::string format_rates(const TraceSummary &s) {
  constexpr size_t kMaxRows = 256;
  std::map<RateSource, std::pair<uint32_t, std::pair<double, double>>> by_source;
  for (const TraceSummary::RowRate &r : s.rates) {
    auto [it, fresh] = by_source.try_emplace(r.source, 0, std::make_pair(r.ghz, r.ghz));
    ++it->second.first;
    it->second.second.first = std::min(it->second.second.first, r.ghz);
    it->second.second.second = std::max(it->second.second.second, r.ghz);
  }
  std::string out = "clock rate sources\n";
  Table src({"source", "rows", "min GHz", "max GHz"});
  for (const auto &[source, v] : by_source)
    src.add({rate_source_name(source), count(v.first), num(v.second.first, 4),
             num(v.second.second, 4)});
  out += src.str() + "\n";
  // Many rows: only those whose rate was not measured on the row itself are worth a line each.
  constexpr size_t kFullTable = 16;
  std::vector<const TraceSummary::RowRate *> listed;
  for (const TraceSummary::RowRate &r : s.rates)
    if (s.rates.size() <= kFullTable || r.source != RateSource::measured)
      listed.push_back(&r);
  const size_t measured = s.rates.size() - listed.size();
  if (s.rates.size() > kFullTable) {
    out += "clock rate per row: " + count(measured) + " of " + count(s.rates.size()) +
           " rows have their CTA's measured rate (--json lists every row's)";
    if (listed.empty())
      return out + "\n\n";
    out += "; the others:\n";
  } else {
    out += "clock rate per row\n";
  }
  // Slice rows share their group's number: their label (warp[w3]) says which row it is. Kernels
  // without TRACE_GROUPS keep the table they always had.
  const bool labels = std::any_of(s.rates.begin(), s.rates.end(),
                                  [](const TraceSummary::RowRate &r) { return r.sliced; });
  Table rows(labels
                 ? std::vector<std::string>{"row", "cta", "group", "label", "SM", "GHz", "source"}
                 : std::vector<std::string>{"row", "cta", "group", "SM", "GHz", "source"});
  for (size_t i = 0; i < listed.size() && i < kMaxRows; ++i) {
    const TraceSummary::RowRate &r = *listed[i];
    std::vector<std::string> cells = {std::to_string(r.row), std::to_string(r.cta),
                                      std::to_string(r.group)};
    if (labels)
      cells.push_back(printable(r.label));
    for (std::string cell :
         {std::to_string(r.smid), num(r.ghz, 4), std::string(rate_source_name(r.source))})
      cells.push_back(std::move(cell));
    rows.add(std::move(cells));
  }
  out += rows.str();
  if (listed.size() > kMaxRows)
    out += "  ... " + std::to_string(listed.size() - kMaxRows) + " more rows\n";
  return out + "\n";
}

} // namespace

std::string format_slice_groups(const std::vector<SliceGroupSummary> &groups,
                                const std::string &indent) {
  constexpr size_t kMaxLines = 256;
  if (groups.empty())
    return "";
  std::string out = indent + "slices of TRACE_GROUPS groups (busy: union of the slice row's " +
                    "slices over its life, summed over CTAs)\n";
  Table per({"slice", "ctas", "events", "busy ns", "life ns", "busy"});
  size_t lines = 0, left = 0;
  for (const SliceGroupSummary &g : groups)
    for (const SliceRowSummary &r : g.slices) {
      if (lines++ >= kMaxLines) {
        ++left;
        continue;
      }
      per.add({printable(r.label), count(r.rows), count(r.events), num(r.busy_ns, 1),
               num(r.span_ns, 1), num(100 * r.busy_fraction(), 1) + "%"});
    }
  out += per.str(indent + "  ");
  if (left)
    out += indent + "  ... " + std::to_string(left) + " more slices\n";
  out += "\n" + indent + "imbalance between the slices of a group (min / median / max)\n";
  Table imb({"group", "size", "slices", "busy ns min", "median", "max", "busy min", "median", "max",
             "events min", "median", "max"});
  for (const SliceGroupSummary &g : groups) {
    const std::string size = g.slice_threads == 32    ? "warp"
                             : g.slice_threads == 128 ? "warpgroup"
                                                      : std::to_string(g.slice_threads) + " thr";
    imb.add({printable(g.name), size, count(g.slices.size()), num(g.busy_ns.min, 1),
             num(g.busy_ns.median, 1), num(g.busy_ns.max, 1),
             num(100 * g.busy_fraction.min, 1) + "%", num(100 * g.busy_fraction.median, 1) + "%",
             num(100 * g.busy_fraction.max, 1) + "%", num(g.events.min, 0), num(g.events.median, 0),
             num(g.events.max, 0)});
  }
  return out + imb.str(indent + "  ") + "\n";
}

std::string format_summary(const TraceSummary &s) {
  const BufferHeader &h = s.header;
  std::string out = "kernel " + printable(s.kernel) + "  grid (" + std::to_string(h.grid[0]) + "," +
                    std::to_string(h.grid[1]) + "," + std::to_string(h.grid[2]) + ")  block (" +
                    std::to_string(h.block[0]) + "," + std::to_string(h.block[1]) + "," +
                    std::to_string(h.block[2]) + ")  clock " +
                    (h.clock == Clock::clock64 ? "clock64" : "globaltimer") + "\n";
  out += completeness_line(s.completeness) + "\n";
  out += "rows " + std::to_string(s.rows_started) + " started";
  if (s.rows_killed)
    out += " (" + std::to_string(s.rows_killed) + " never ended: kernel trapped or killed)";
  out += "; clock " +
         (s.rows_measured ? num(s.min_ghz, 3) + "-" + num(s.max_ghz, 3) + " GHz measured on " +
                                std::to_string(s.rows_measured) + " rows"
                          : std::string("not measured on any row")) +
         "\n";
  if (s.marker_cost)
    out += describe_marker_cost(*s.marker_cost) +
           " (measured at run start): taken out inside slices (--raw-times keeps it)\n";
  out += "\n";
  out += format_rates(s);

  out += "events\n";
  Table ev({"name", "count", "incomplete", "total cyc", "mean cyc", "p50 cyc", "p95 cyc", "max cyc",
            "total ns", "mean ns", "p50 ns", "p95 ns", "max ns"});
  for (const EventSummary &e : s.events) {
    if (e.instant) {
      ev.add({printable(e.name) + " (instant)", count(e.count)});
      continue;
    }
    ev.add({printable(e.name), count(e.count), count(e.incomplete), num(e.cycles.total, 0),
            num(e.cycles.mean, 1), num(e.cycles.p50, 0), num(e.cycles.p95, 0), num(e.cycles.max, 0),
            num(e.ns.total, 1), num(e.ns.mean, 1), num(e.ns.p50, 1), num(e.ns.p95, 1),
            num(e.ns.max, 1)});
  }
  out += ev.str() + "\n";

  out += "groups (busy: union of the group's slices over its row's life, time waiting inside a "
         "range included; trace-view analyze --only busy splits out hand-off waits; life: the "
         "rows' lifetimes, start to end, summed)\n";
  if (s.slice_groups.empty()) {
    Table gr({"group", "ctas", "busy ns", "life ns", "busy"});
    for (const GroupSummary &g : s.groups)
      gr.add({printable(g.name), count(g.ctas), num(g.busy_ns, 1), num(g.span_ns, 1),
              num(100 * g.busy_fraction(), 1) + "%"});
    out += gr.str() + "\n";
  } else { // a sliced group has a row per slice in each CTA
    Table gr({"group", "ctas", "rows", "busy ns", "life ns", "busy"});
    for (const GroupSummary &g : s.groups)
      gr.add({printable(g.name), count(g.ctas), count(g.rows), num(g.busy_ns, 1), num(g.span_ns, 1),
              num(100 * g.busy_fraction(), 1) + "%"});
    out += gr.str() + "\n";
    out += format_slice_groups(s.slice_groups, "");
  }

  out += "SMs (times in ns since the launch's earliest row start)\n";
  Table sm({"SM", "ctas", "first start", "last end", "span"});
  for (const SmSummary &m : s.sms)
    sm.add({std::to_string(m.smid), count(m.ctas), num(m.first_start_ns, 1), num(m.last_end_ns, 1),
            num(m.last_end_ns - m.first_start_ns, 1)});
  out += sm.str() + "\n";

  out += "counts\n";
  Table c({"what", "count"});
  c.add({"slices", count(s.slices)});
  c.add({"instants", count(s.instants)});
  c.add({"flows drawn", count(s.flows)});
  c.add({"dropped events (overflow)", count(s.dropped)});
  c.add({"incomplete slices", count(s.incomplete)});
  c.add({"unmatched ends", count(s.unmatched_ends)});
  c.add({"unknown site ids", count(s.unknown_sites)});
  c.add({"invalid records", count(s.invalid_records)});
  c.add({"flows skipped (backward)", count(s.backward_flows)});
  c.add({"flow ends without partner", count(s.unpaired_flows)});
  c.add({"decode problems", count(s.problems.size())});
  out += c.str();
  for (size_t i = 0; i < s.problems.size() && i < 10; ++i)
    out += "  problem: " + printable(s.problems[i]) + "\n";
  if (s.problems.size() > 10)
    out += "  ... " + std::to_string(s.problems.size() - 10) + " more problems\n";
  return out;
}

} // namespace cutrace
