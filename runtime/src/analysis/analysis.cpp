// The analyses of a decoded launch (cutrace/analysis.h, docs/analysis.md). Each reads only the
// decoded rows, slices and flows; interval lengths are unions, so nested or overlapping ranges
// count once.
#include <cutrace/analysis.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace cutrace {

namespace {

using Span = std::pair<double, double>;

// The union of [begin, end) spans clipped to [lo, hi], as sorted disjoint spans.
std::vector<Span> union_of(std::vector<Span> spans, double lo, double hi) {
  std::sort(spans.begin(), spans.end());
  std::vector<Span> out;
  for (auto [b, e] : spans) {
    b = std::max(b, lo);
    e = std::min(e, hi);
    if (e <= b)
      continue;
    if (!out.empty() && b <= out.back().second)
      out.back().second = std::max(out.back().second, e);
    else
      out.emplace_back(b, e);
  }
  return out;
}

double length_of(const std::vector<Span> &disjoint) {
  double total = 0;
  for (const Span &s : disjoint)
    total += s.second - s.first;
  return total;
}

// Length of the intersection of two sorted lists of disjoint spans.
double overlap_of(const std::vector<Span> &a, const std::vector<Span> &b) {
  double total = 0;
  for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    const double lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (hi > lo)
      total += hi - lo;
    (a[i].second < b[j].second ? i : j)++;
  }
  return total;
}

const Slice &slice_at(const Trace &t, const SliceRef &r) { return t.rows[r.row].slices[r.slice]; }

double row_life_ns(const Trace &t, const Row &r) { return row_end_ns(t, r) - row_start_ns(t, r); }

} // namespace

// ---- Hand-offs ----

HandoffTiming handoff_timing(const Trace &t, const Flow &f) {
  const Slice &src = slice_at(t, f.src), &dst = slice_at(t, f.dst);
  HandoffTiming h;
  h.wait_ns = std::max(0.0, src.end_ns - dst.begin_ns);
  h.gap_ns = std::max(0.0, dst.begin_ns - src.end_ns);
  h.after_ns = std::max(0.0, dst.end_ns - std::max(dst.begin_ns, src.end_ns));
  // Rows of one CTA share the SM's clock: compare cycles directly (as match_flows does).
  const double src_end = double(src.end_cycles), dst_begin = double(dst.begin_cycles),
               dst_end = double(dst.end_cycles);
  h.wait_cycles = std::max(0.0, src_end - dst_begin);
  h.gap_cycles = std::max(0.0, dst_begin - src_end);
  h.after_cycles = std::max(0.0, dst_end - std::max(dst_begin, src_end));
  return h;
}

namespace {

// The slice of another name on dst's row that ends last at or before dst begins (its own wait,
// in a consumer that waits in a range of its own before dst), when it ends after src ended;
// nullptr otherwise. The previous dst is no such wait: it is the consumer's previous tile.
const Slice *ready_before(const Trace &t, const Flow &f) {
  const Row &row = t.rows[f.dst.row];
  const Slice &dst = row.slices[f.dst.slice], &src = slice_at(t, f.src);
  const Slice *best = nullptr;
  for (uint32_t i = 0; i < f.dst.slice; ++i) { // slices are in begin order
    const Slice &s = row.slices[i];
    if (s.name != dst.name && s.end_cycles <= dst.begin_cycles &&
        (!best || s.end_cycles > best->end_cycles))
      best = &s;
  }
  return best && best->end_ns > src.end_ns ? best : nullptr;
}

// Issue -> ready of the flows whose dst is preceded by a range of the most frequent name.
void add_issue_to_ready(const Trace &t, const std::vector<const Flow *> &flows, HandoffPair &p) {
  std::map<std::string, uint64_t> names;
  std::vector<std::pair<const Flow *, const Slice *>> ready;
  for (const Flow *f : flows)
    if (const Slice *s = ready_before(t, *f)) {
      ++names[s->name];
      ready.emplace_back(f, s);
    }
  if (names.empty())
    return;
  p.ready_name = std::max_element(names.begin(), names.end(), [](const auto &a, const auto &b) {
                   return a.second < b.second;
                 })->first;
  std::vector<double> ns, cycles;
  for (const auto &[f, s] : ready)
    if (s->name == p.ready_name) {
      const Slice &src = slice_at(t, f->src);
      ns.push_back(s->end_ns - src.end_ns);
      cycles.push_back(double(s->end_cycles) - double(src.end_cycles));
    }
  p.ready_count = ns.size();
  p.issue_to_ready_ns = durations_of(std::move(ns));
  p.issue_to_ready_cycles = durations_of(std::move(cycles));
}

} // namespace

std::vector<HandoffPair> analyze_handoffs(const DecodeMap &map, const Trace &t) {
  struct Samples {
    std::vector<double> wait_ns, wait_cycles, gap_ns, gap_cycles, after_ns, after_cycles;
    std::set<std::pair<uint32_t, uint32_t>> paired_dst; // (row, slice)
    std::vector<const Flow *> flows;
    uint64_t waited = 0, incomplete = 0;
  };
  std::map<std::pair<std::string, std::string>, Samples> by_pair;
  for (const Flow &f : t.flows) {
    Samples &s = by_pair[{slice_at(t, f.src).name, slice_at(t, f.dst).name}];
    const HandoffTiming h = handoff_timing(t, f);
    s.wait_ns.push_back(h.wait_ns);
    s.wait_cycles.push_back(h.wait_cycles);
    s.gap_ns.push_back(h.gap_ns);
    s.gap_cycles.push_back(h.gap_cycles);
    s.after_ns.push_back(h.after_ns);
    s.after_cycles.push_back(h.after_cycles);
    s.waited += h.wait_ns > 0;
    s.incomplete += slice_at(t, f.src).incomplete || slice_at(t, f.dst).incomplete;
    s.paired_dst.insert({f.dst.row, f.dst.slice});
    s.flows.push_back(&f);
  }
  std::vector<HandoffPair> out;
  std::set<std::pair<std::string, std::string>> seen;
  for (const FlowDecl &decl : map.flows) {
    if (!seen.insert({decl.src, decl.dst}).second)
      continue; // declared twice: match_flows drew its flows twice, count them once here
    HandoffPair p;
    p.src = decl.src;
    p.dst = decl.dst;
    for (const Row &r : t.rows) {
      const auto named = std::count_if(r.slices.begin(), r.slices.end(),
                                       [&](const Slice &s) { return s.name == decl.dst; });
      p.dst_slices += uint64_t(named);
      if (named && r.started) {
        ++p.dst_rows;
        p.dst_life_ns += row_life_ns(t, r);
      }
    }
    p.unpaired_dst = p.dst_slices;
    auto it = by_pair.find({decl.src, decl.dst});
    if (it != by_pair.end()) {
      Samples &s = it->second;
      p.count = s.wait_ns.size();
      p.waited = s.waited;
      p.incomplete = s.incomplete;
      p.unpaired_dst -= std::min<uint64_t>(p.unpaired_dst, s.paired_dst.size());
      p.wait_ns = durations_of(std::move(s.wait_ns));
      p.wait_cycles = durations_of(std::move(s.wait_cycles));
      p.gap_ns = durations_of(std::move(s.gap_ns));
      p.gap_cycles = durations_of(std::move(s.gap_cycles));
      p.after_ns = durations_of(std::move(s.after_ns));
      p.after_cycles = durations_of(std::move(s.after_cycles));
      if (p.measures_issue())
        add_issue_to_ready(t, s.flows, p);
    }
    out.push_back(std::move(p));
  }
  return out;
}

// ---- Busy and idle ----

namespace {

std::vector<NameTime> names_by_time(const std::map<std::string, double> &ns) {
  std::vector<NameTime> out;
  for (const auto &[name, time] : ns)
    out.push_back({name, time});
  std::stable_sort(out.begin(), out.end(),
                   [](const NameTime &a, const NameTime &b) { return a.ns > b.ns; });
  return out;
}

} // namespace

BusyReport analyze_busy(const DecodeMap &map, const Trace &t) {
  // Wait intervals per dst row: [dst begin, min(src end, dst end)].
  std::map<uint32_t, std::vector<Span>> waits;
  for (const Flow &f : t.flows) {
    const Slice &src = slice_at(t, f.src), &dst = slice_at(t, f.dst);
    const double until = std::min(src.end_ns, dst.end_ns);
    if (until > dst.begin_ns)
      waits[f.dst.row].emplace_back(dst.begin_ns, until);
  }
  BusyReport report;
  std::map<uint32_t, BusyTotals> groups;
  std::map<std::tuple<uint32_t, uint32_t, std::string>, BusyTotals> labels; // group, slice, label
  std::map<uint32_t, std::set<uint32_t>> group_ctas;
  std::map<std::tuple<uint32_t, uint32_t, std::string>, std::set<uint32_t>> label_ctas;
  std::map<BusyTotals *, std::map<std::string, double>> name_ns; // stable: map values
  for (uint32_t i = 0; i < t.rows.size(); ++i) {
    const Row &r = t.rows[i];
    if (!r.started)
      continue;
    const double lo = row_start_ns(t, r), hi = row_end_ns(t, r);
    std::vector<Span> spans;
    for (const Slice &s : r.slices)
      spans.emplace_back(s.begin_ns, s.end_ns);
    const std::vector<Span> busy = union_of(std::move(spans), lo, hi);
    std::map<std::string, std::vector<Span>> by_name;
    for (const Slice &s : r.slices)
      by_name[s.name].emplace_back(s.begin_ns, s.end_ns);
    std::map<std::string, double> row_names; // time inside each name, nested ones counted once
    for (auto &[name, list] : by_name)
      row_names[name] = length_of(union_of(std::move(list), lo, hi));
    RowBusy rb;
    rb.row = i;
    rb.cta = r.cta;
    rb.smid = r.smid;
    rb.group = r.group;
    rb.label = r.label;
    rb.life_ns = hi - lo;
    rb.busy_ns = length_of(busy);
    rb.dropped = r.dropped;
    rb.never_ended = r.never_ended();
    for (const Slice &s : r.slices)
      rb.incomplete += s.incomplete;
    auto w = waits.find(i);
    if (w != waits.end())
      rb.wait_ns = overlap_of(busy, union_of(w->second, lo, hi));

    const std::string group_name =
        r.group < map.groups.size() ? map.groups[r.group].name : "#" + std::to_string(r.group);
    const auto label_key = std::make_tuple(r.group, r.slice, r.label);
    for (BusyTotals *sum : {&groups[r.group], &labels[label_key]}) {
      sum->group = r.group;
      ++sum->rows;
      sum->life_ns += rb.life_ns;
      sum->busy_ns += rb.busy_ns;
      sum->wait_ns += rb.wait_ns;
      sum->rows_with_gaps += rb.gaps();
      for (const auto &[name, ns] : row_names)
        name_ns[sum][name] += ns;
    }
    groups[r.group].name = group_name;
    labels[label_key].name = r.label;
    group_ctas[r.group].insert(r.cta);
    label_ctas[label_key].insert(r.cta);
    report.rows.push_back(std::move(rb));
  }
  for (auto &[sum, names] : name_ns)
    sum->names = names_by_time(names);
  for (auto &[g, sum] : groups) {
    sum.ctas = uint32_t(group_ctas[g].size());
    report.groups.push_back(std::move(sum));
  }
  for (auto &[key, sum] : labels) {
    sum.ctas = uint32_t(label_ctas[key].size());
    report.labels.push_back(std::move(sum));
  }
  return report;
}

// ---- Tail, imbalance and waves ----

namespace {

// The most intervals [start, finish) open at one time, and the steps of the count over time.
// A finish at the same time as a start closes first: back-to-back CTAs do not overlap.
uint32_t max_open(const std::vector<const CtaSpan *> &ctas, std::vector<ConcurrencyStep> *steps) {
  std::vector<std::pair<double, int>> edges;
  for (const CtaSpan *c : ctas) {
    edges.emplace_back(c->start_ns, +1);
    edges.emplace_back(c->finish_ns, -1);
  }
  std::sort(edges.begin(), edges.end()); // -1 before +1 at one time
  uint32_t open = 0, most = 0;
  for (size_t i = 0; i < edges.size(); ++i) {
    open = uint32_t(int(open) + edges[i].second);
    most = std::max(most, open);
    const bool last_at_time = i + 1 == edges.size() || edges[i + 1].first != edges[i].first;
    if (steps && last_at_time && (steps->empty() || steps->back().running != open))
      steps->push_back({edges[i].first, open});
  }
  return most;
}

} // namespace

TailReport analyze_tail(const Trace &t) {
  TailReport report;
  std::map<uint32_t, CtaSpan> ctas;
  for (const Row &r : t.rows) {
    if (!r.started)
      continue;
    const double start = row_start_ns(t, r), finish = row_end_ns(t, r);
    auto [it, fresh] = ctas.try_emplace(r.cta);
    CtaSpan &c = it->second;
    c.cut = c.cut || r.never_ended();
    if (fresh) {
      c.cta = r.cta, c.smid = r.smid, c.start_ns = start, c.finish_ns = finish;
      continue;
    }
    c.start_ns = std::min(c.start_ns, start);
    c.finish_ns = std::max(c.finish_ns, finish);
  }
  if (ctas.empty())
    return report;
  std::vector<double> durations;
  std::map<uint32_t, std::vector<const CtaSpan *>> by_sm;
  for (const auto &[index, c] : ctas)
    report.ctas.push_back(c);
  for (const CtaSpan &c : report.ctas) {
    durations.push_back(c.finish_ns - c.start_ns);
    by_sm[c.smid].push_back(&c);
  }
  report.cta_duration_ns = durations_of(durations);

  std::vector<const CtaSpan *> by_finish;
  for (const CtaSpan &c : report.ctas)
    by_finish.push_back(&c);
  std::stable_sort(by_finish.begin(), by_finish.end(),
                   [](const CtaSpan *a, const CtaSpan *b) { return a->finish_ns < b->finish_ns; });
  const size_t n = by_finish.size();
  report.kernel_start_ns = report.ctas.front().start_ns;
  for (const CtaSpan &c : report.ctas)
    report.kernel_start_ns = std::min(report.kernel_start_ns, c.start_ns);
  report.kernel_end_ns = by_finish.back()->finish_ns;
  const size_t p95_rank = std::max<size_t>(1, size_t(std::ceil(0.95 * double(n))));
  report.p95_finish_ns = by_finish[p95_rank - 1]->finish_ns;
  report.tail_ns = report.kernel_end_ns - report.p95_finish_ns;
  if (n > 1)
    report.last_lag_ns = report.kernel_end_ns - by_finish[n - 2]->finish_ns;
  const size_t last = std::max<size_t>(1, size_t(std::ceil(0.05 * double(n))));
  std::vector<const CtaSpan *> latest = by_finish; // latest first; one finish: lower CTA first
  std::stable_sort(latest.begin(), latest.end(),
                   [](const CtaSpan *a, const CtaSpan *b) { return a->finish_ns > b->finish_ns; });
  for (size_t i = 0; i < last; ++i)
    report.last.push_back(*latest[i]);

  for (const auto &[smid, list] : by_sm) {
    SmSpan sm;
    sm.smid = smid;
    sm.ctas = uint32_t(list.size());
    sm.first_start_ns = list.front()->start_ns;
    sm.last_finish_ns = list.front()->finish_ns;
    for (const CtaSpan *c : list) {
      sm.first_start_ns = std::min(sm.first_start_ns, c->start_ns);
      sm.last_finish_ns = std::max(sm.last_finish_ns, c->finish_ns);
    }
    sm.max_concurrent = std::max<uint32_t>(1, max_open(list, nullptr));
    report.max_concurrent_per_sm = std::max(report.max_concurrent_per_sm, sm.max_concurrent);
    report.waves = std::max(report.waves, (sm.ctas + sm.max_concurrent - 1) / sm.max_concurrent);
    report.sms.push_back(sm);
  }
  report.full_waves = double(n) / (double(report.sms.size()) * report.max_concurrent_per_sm);
  std::vector<const CtaSpan *> all;
  for (const CtaSpan &c : report.ctas)
    all.push_back(&c);
  max_open(all, &report.concurrency);
  return report;
}

// ---- Histograms and outliers ----

std::vector<Histogram> duration_histograms(const Trace &t, uint32_t bins,
                                           const std::optional<std::string> &name) {
  bins = std::max<uint32_t>(bins, 1);
  std::map<std::string, std::vector<double>> by_name;
  std::map<std::string, uint64_t> incomplete;
  for (const Row &r : t.rows)
    for (const Slice &s : r.slices)
      if (!name || s.name == *name) {
        by_name[s.name].push_back(s.end_ns - s.begin_ns);
        incomplete[s.name] += s.incomplete;
      }
  std::vector<Histogram> out;
  for (auto &[n, values] : by_name) {
    Histogram h;
    h.name = n;
    h.count = values.size();
    h.incomplete = incomplete[n];
    h.min_ns = *std::min_element(values.begin(), values.end());
    h.max_ns = *std::max_element(values.begin(), values.end());
    h.bin_width_ns = (h.max_ns - h.min_ns) / bins;
    h.bins.assign(bins, 0);
    if (values.size() <= bins) {
      h.values = values;
      std::sort(h.values.begin(), h.values.end());
    }
    for (double v : values) {
      size_t i = h.bin_width_ns > 0 ? size_t((v - h.min_ns) / h.bin_width_ns) : 0;
      ++h.bins[std::min<size_t>(i, bins - 1)];
    }
    out.push_back(std::move(h));
  }
  return out;
}

std::vector<Outlier> slowest_slices(const Trace &t, size_t n,
                                    const std::optional<std::string> &name) {
  std::vector<SliceRef> refs;
  for (uint32_t r = 0; r < t.rows.size(); ++r)
    for (uint32_t s = 0; s < t.rows[r].slices.size(); ++s)
      if (!name || t.rows[r].slices[s].name == *name)
        refs.push_back({r, s});
  auto longer = [&t](const SliceRef &a, const SliceRef &b) {
    const Slice &x = slice_at(t, a), &y = slice_at(t, b);
    const double dx = x.end_ns - x.begin_ns, dy = y.end_ns - y.begin_ns;
    if (dx != dy)
      return dx > dy;
    return std::make_tuple(t.rows[a.row].cta, a.row, x.begin_ns, a.slice) <
           std::make_tuple(t.rows[b.row].cta, b.row, y.begin_ns, b.slice);
  };
  const size_t keep = std::min(n, refs.size());
  std::partial_sort(refs.begin(), refs.begin() + ptrdiff_t(keep), refs.end(), longer);
  std::vector<Outlier> out;
  for (size_t i = 0; i < keep; ++i) {
    const Row &r = t.rows[refs[i].row];
    const Slice &s = slice_at(t, refs[i]);
    Outlier o;
    o.name = s.name;
    o.row = refs[i].row;
    o.cta = r.cta;
    o.smid = r.smid;
    o.label = r.label;
    o.payload = s.payload;
    o.begin_ns = s.begin_ns;
    o.duration_ns = s.end_ns - s.begin_ns;
    o.begin_cycles = s.begin_cycles;
    o.duration_cycles = s.end_cycles - s.begin_cycles;
    o.incomplete = s.incomplete;
    out.push_back(std::move(o));
  }
  return out;
}

// ---- Statistics of a time window ----

WindowStats window_statistics(const Trace &t, WindowAxis axis, double begin, double end) {
  WindowStats w;
  w.axis = axis;
  w.begin = begin;
  w.end = end;
  std::map<std::string, WindowName> slices;
  std::map<std::string, uint64_t> instants;
  const bool ns = axis == WindowAxis::ns;
  for (const Row &r : t.rows) {
    for (const Slice &s : r.slices) {
      const double b = ns ? s.begin_ns : double(s.begin_cycles);
      const double e = ns ? s.end_ns : double(s.end_cycles);
      if (b > end || e < begin)
        continue;
      WindowName &n = slices[s.name];
      n.name = s.name;
      ++n.count;
      n.clipped += std::max(0.0, std::min(e, end) - std::max(b, begin));
      n.full += e - b;
    }
    for (const Instant &i : r.instants) {
      const double at = ns ? i.ns : double(i.cycles);
      if (at >= begin && at <= end)
        ++instants[i.name];
    }
  }
  for (auto &[name, n] : slices)
    w.slices.push_back(std::move(n));
  for (auto &[name, count] : instants)
    w.instants.emplace_back(name, count);
  return w;
}

} // namespace cutrace
