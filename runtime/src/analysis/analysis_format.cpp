// `trace-view analyze`'s terminal tables and JSON (cutrace/analysis.h; keys in docs/analysis.md).
#include "analysis_verdict.h"
#include "completeness_json.h"
#include "summary_table.h"

#include <cutrace/analysis.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>

namespace cutrace {

namespace {

using namespace summary_table;
using nlohmann::json;

constexpr size_t kMaxLines = 256; // per table; the JSON has every line
constexpr size_t kWorstFew = 5;   // lines of a summarized table

std::string percent(double fraction) { return num(100 * fraction, 1) + "%"; }

std::string more_line(size_t shown, size_t total, const std::string &what) {
  return total > shown ? "  ... " + std::to_string(total - shown) + " more " + what +
                             " (all of them in --json)\n"
                       : "";
}

std::string format_handoffs(const std::vector<HandoffPair> &pairs) {
  std::string out = "hand-offs (TRACE_DAG src -> dst; wait: src end - dst begin, inside dst; gap: "
                    "dst begin - src end; after: dst end - max(dst begin, src end))\n";
  if (pairs.empty())
    return out + "  the kernel declares no TRACE_DAG pair\n\n";
  for (const HandoffPair &p : pairs) {
    out += "  " + printable(p.src) + " -> " + printable(p.dst) + ": " + count(p.count) +
           " hand-offs, " + count(p.waited) + " waited; waits are " + percent(p.wait_fraction()) +
           " of the life of the " + count(p.dst_rows) + " rows holding " + printable(p.dst) + " (" +
           num(p.dst_life_ns, 1) + " ns)\n";
    if (p.incomplete)
      out += "    " + count(p.incomplete) +
             " of them over incomplete slices: their waits end "
             "where the row's records end, not where the slice did\n";
    if (p.unpaired_dst)
      out += "    " + count(p.unpaired_dst) + " of the " + count(p.dst_slices) + " " +
             printable(p.dst) + " slices got no hand-off: each " + printable(p.src) +
             " pairs with one " + printable(p.dst) + " (docs/analysis.md, \"Hand-offs\")\n";
    if (p.measures_issue())
      out += "    the arrow measures issue: no " + printable(p.dst) + " began before its " +
             printable(p.src) + " ended, so " + printable(p.src) +
             " ends when the transfer is issued, not when the data lands; issue -> ready: " +
             (p.ready_name.empty()
                  ? "no range before " + printable(p.dst) + " on its row ends after " +
                        printable(p.src)
                  : printable(p.src) + " end to the end of the consumer's " +
                        printable(p.ready_name) + " (the range before " + printable(p.dst) +
                        " on its row), " + count(p.ready_count) + " hand-offs") +
             "\n";
    if (p.count == 0)
      continue;
    Table t({"", "total", "mean", "p50", "p95", "max"});
    auto add = [&t](const std::string &what, const Durations &d, int decimals) {
      t.add({what, num(d.total, decimals), num(d.mean, 1), num(d.p50, decimals),
             num(d.p95, decimals), num(d.max, decimals)});
    };
    add("wait ns", p.wait_ns, 1);
    add("wait cyc", p.wait_cycles, 0);
    add("gap ns", p.gap_ns, 1);
    add("gap cyc", p.gap_cycles, 0);
    add("after ns", p.after_ns, 1);
    add("after cyc", p.after_cycles, 0);
    if (p.ready_count) {
      add("issue->ready ns", p.issue_to_ready_ns, 1);
      add("issue->ready cyc", p.issue_to_ready_cycles, 0);
    }
    out += t.str("    ");
  }
  return out + "\n";
}

void add_names(Table &t, const BusyTotals &b) {
  for (const NameTime &n : b.names)
    t.add({printable(b.name) + ": " + printable(n.name), num(n.ns, 1),
           percent(b.life_ns > 0 ? n.ns / b.life_ns : 0)});
  t.add({printable(b.name) + ": (in no range)", num(b.idle_ns(), 1),
         percent(b.life_ns > 0 ? b.idle_ns() / b.life_ns : 0)});
}

// Where each group's (and row label's) life went, by range name.
std::string format_time(const BusyReport &b, bool all_rows) {
  std::string out = "time by range name (share of the rows' life; per row the union of the "
                    "name's slices, so a name nested in itself counts once, a range nested in "
                    "another counts in both)\n";
  Table groups({"group: name", "time ns", "share"});
  for (const BusyTotals &g : b.groups)
    add_names(groups, g);
  out += groups.str();
  if (b.labels.size() == b.groups.size())
    return out + "\n";
  if (!all_rows && b.labels.size() > kFullTableLines)
    return out + "  (" + count(b.labels.size()) + " row labels: --rows gives each one's)\n\n";
  Table labels({"row label: name", "time ns", "share"});
  for (const BusyTotals &l : b.labels)
    add_names(labels, l);
  return out + "\n  per row label, summed over CTAs\n" + labels.str("    ") + "\n";
}

// "984 dropped, never ended, 3 incomplete" (what a row did not record), or "".
std::string row_gaps(const RowBusy &r) {
  std::string out;
  auto add = [&out](const std::string &what) { out += (out.empty() ? "" : ", ") + what; };
  if (r.dropped)
    add(count(r.dropped) + " dropped");
  if (r.never_ended)
    add("never ended");
  if (r.incomplete)
    add(count(r.incomplete) + " incomplete");
  return out;
}

void add_busy(Table &t, const BusyTotals &b, bool with_rows) {
  std::vector<std::string> cells = {printable(b.name), count(b.ctas)};
  if (with_rows)
    cells.push_back(count(b.rows));
  for (std::string c :
       {num(b.life_ns, 1), num(b.busy_ns, 1), percent(b.busy_fraction()), num(b.wait_ns, 1),
        percent(b.wait_fraction()), num(b.busy_excluding_waits_ns(), 1),
        percent(b.busy_excluding_waits_fraction()), num(b.idle_ns(), 1),
        percent(b.life_ns > 0 ? b.idle_ns() / b.life_ns : 0)})
    cells.push_back(std::move(c));
  t.add(std::move(cells));
}

// The rows' spread and the few least busy, instead of every row.
std::string busy_rows_summary(const BusyReport &b) {
  std::vector<double> busy, working;
  size_t with_gaps = 0;
  for (const RowBusy &r : b.rows) {
    busy.push_back(r.life_ns > 0 ? r.busy_ns / r.life_ns : 0);
    working.push_back(r.life_ns > 0 ? r.busy_excluding_waits_ns() / r.life_ns : 0);
    with_gaps += r.gaps();
  }
  const Spread sb = spread_of(busy), sw = spread_of(working);
  std::string out = "\n  per row: " + count(b.rows.size()) + " rows; busy min " + percent(sb.min) +
                    ", median " + percent(sb.median) + ", max " + percent(sb.max);
  if (busy != working)
    out += "; working min " + percent(sw.min) + ", median " + percent(sw.median) + ", max " +
           percent(sw.max);
  if (with_gaps)
    out += "; " + count(with_gaps) + " rows with gaps";
  return out + "\n  the " + count(kWorstFew) +
         (busy != working ? " least working" : " least busy") + " rows (--rows lists every row):\n";
}

std::string format_busy(const BusyReport &b, bool all_rows) {
  std::string out = "busy and idle (busy: union of a row's slices over its life, nested ranges "
                    "counted once; wait: hand-off waits inside the busy time; working: busy - "
                    "wait; idle: life - busy)\n";
  const std::vector<std::string> sums = {"life ns",    "busy ns", "busy",    "wait ns", "wait",
                                         "working ns", "working", "idle ns", "idle"};
  auto header = [&sums](std::vector<std::string> first) {
    first.insert(first.end(), sums.begin(), sums.end());
    return first;
  };
  Table groups(header({"group", "ctas", "rows"}));
  for (const BusyTotals &g : b.groups)
    add_busy(groups, g, true);
  out += groups.str();
  if (b.labels.size() != b.groups.size()) { // some group has a row per warp or warpgroup
    std::vector<const BusyTotals *> shown;
    for (const BusyTotals &l : b.labels)
      shown.push_back(&l);
    if (!all_rows && b.labels.size() > kFullTableLines) {
      std::vector<double> busy;
      for (const BusyTotals &l : b.labels)
        busy.push_back(l.busy_fraction());
      const Spread sb = spread_of(busy);
      out += "\n  per row label, summed over CTAs: " + count(b.labels.size()) +
             " labels; busy min " + percent(sb.min) + ", median " + percent(sb.median) + ", max " +
             percent(sb.max) + "\n  the " + count(kWorstFew) +
             " least working labels (--rows lists every label):\n";
      std::stable_sort(shown.begin(), shown.end(), [](const BusyTotals *x, const BusyTotals *y) {
        return x->busy_excluding_waits_fraction() < y->busy_excluding_waits_fraction();
      });
      shown.resize(kWorstFew);
    } else {
      out += "\n  per row label, summed over CTAs\n";
    }
    Table labels(header({"label", "ctas"}));
    const size_t limit = all_rows ? shown.size() : kMaxLines;
    for (size_t i = 0; i < shown.size() && i < limit; ++i)
      add_busy(labels, *shown[i], false);
    out += labels.str("    ") + more_line(std::min(limit, shown.size()), shown.size(), "labels");
  }
  std::vector<const RowBusy *> shown;
  for (const RowBusy &r : b.rows)
    shown.push_back(&r);
  const bool summarized = !all_rows && b.rows.size() > kFullTableLines;
  if (summarized) {
    out += busy_rows_summary(b);
    // Least working first (busy outside hand-off waits): the least busy when nothing waits.
    auto fraction = [](const RowBusy *r) {
      return r->life_ns > 0 ? r->busy_excluding_waits_ns() / r->life_ns : 0;
    };
    std::stable_sort(shown.begin(), shown.end(),
                     [&](const RowBusy *x, const RowBusy *y) { return fraction(x) < fraction(y); });
    shown.resize(kWorstFew);
  } else {
    out += "\n  per row\n";
  }
  const bool gaps =
      std::any_of(b.rows.begin(), b.rows.end(), [](const RowBusy &r) { return r.gaps(); });
  std::vector<std::string> head = {"row",     "cta",  "SM",      "label",      "life ns",
                                   "busy ns", "busy", "wait ns", "working ns", "idle ns"};
  if (gaps)
    head.push_back("gaps");
  Table rows(head);
  const size_t limit = all_rows ? shown.size() : kMaxLines;
  for (size_t i = 0; i < shown.size() && i < limit; ++i) {
    const RowBusy &r = *shown[i];
    std::vector<std::string> cells = {count(r.row),
                                      count(r.cta),
                                      count(r.smid),
                                      printable(r.label),
                                      num(r.life_ns, 1),
                                      num(r.busy_ns, 1),
                                      percent(r.life_ns > 0 ? r.busy_ns / r.life_ns : 0),
                                      num(r.wait_ns, 1),
                                      num(r.busy_excluding_waits_ns(), 1),
                                      num(r.idle_ns(), 1)};
    if (gaps)
      cells.push_back(row_gaps(r));
    rows.add(std::move(cells));
  }
  return out + rows.str("    ") + (summarized ? "" : more_line(limit, b.rows.size(), "rows")) +
         "\n";
}

std::string sm_summary(const TailReport &t) {
  std::vector<double> ctas, spans;
  for (const SmSpan &s : t.sms) {
    ctas.push_back(s.ctas);
    spans.push_back(s.last_finish_ns - s.first_start_ns);
  }
  const Spread c = spread_of(ctas), sp = spread_of(spans);
  return "\n  per SM: " + count(t.sms.size()) + " SMs; CTAs per SM min " + num(c.min, 0) +
         ", median " + num(c.median, 0) + ", max " + num(c.max, 0) + "; span min " +
         num(sp.min, 1) + " ns, median " + num(sp.median, 1) + ", max " + num(sp.max, 1) +
         "\n  the " + count(kWorstFew) + " SMs finishing last (--sms lists every SM):\n";
}

std::string format_tail(const TailReport &t, bool all_sms) {
  std::string out = "tail, imbalance and waves (ns since the launch's earliest row start; a CTA "
                    "runs from its earliest row start to its latest row end)\n";
  if (t.ctas.empty())
    return out + "  no row started\n\n";
  const double span = t.kernel_end_ns - t.kernel_start_ns;
  out += "  " + count(t.ctas.size()) + " CTAs on " + count(t.sms.size()) + " SMs; kernel " +
         num(t.kernel_start_ns, 1) + " .. " + num(t.kernel_end_ns, 1) + " ns\n";
  out += "  CTA duration ns: mean " + num(t.cta_duration_ns.mean, 1) + ", p50 " +
         num(t.cta_duration_ns.p50, 1) + ", p95 " + num(t.cta_duration_ns.p95, 1) + ", max " +
         num(t.cta_duration_ns.max, 1) + "\n";
  if (t.few_ctas())
    out += "  " + few_ctas_tail(t) + "\n";
  else
    out += "  95th-percentile CTA finish " + num(t.p95_finish_ns, 1) + " ns; tail " +
           num(t.tail_ns, 1) + " ns (" + percent(span > 0 ? t.tail_ns / span : 0) +
           " of the kernel)\n";
  std::map<uint32_t, uint32_t> sms_with; // CTAs on an SM -> SMs
  for (const SmSpan &s : t.sms)
    ++sms_with[s.ctas];
  std::string per_sm;
  for (const auto &[ctas, sms] : sms_with)
    per_sm +=
        (per_sm.empty() ? "CTAs per SM: " : ", ") + count(ctas) + " on " + count(sms) + " SMs";
  const size_t cut =
      size_t(std::count_if(t.ctas.begin(), t.ctas.end(), [](const CtaSpan &c) { return c.cut; }));
  if (cut)
    out += "  " + count(cut) + (cut == 1 ? " CTA holds" : " CTAs hold") +
           " a row that never ended: its finish is its last event (marked 'cut')\n";
  out += "  waves: at most " + count(t.max_concurrent_per_sm) +
         (t.max_concurrent_per_sm == 1 ? " CTA" : " CTAs") + " at once on one SM; " +
         count(t.waves) + (t.waves == 1 ? " wave" : " waves") + " (" + per_sm + "; " +
         count(t.ctas.size()) + " CTAs / (" + count(t.sms.size()) + " SMs x " +
         count(t.max_concurrent_per_sm) + ") = " + num(t.full_waves, 2) + " full waves)\n\n";
  out += "  the last 5% of CTAs to finish (at least 1): " + count(t.last.size()) + "\n";
  Table last({"cta", "SM", "start", "finish", "duration"});
  for (const CtaSpan &c : t.last)
    last.add({count(c.cta) + (c.cut ? " cut" : ""), count(c.smid), num(c.start_ns, 1),
              num(c.finish_ns, 1), num(c.finish_ns - c.start_ns, 1)});
  out += last.str("    ");
  std::vector<const SmSpan *> shown;
  for (const SmSpan &s : t.sms)
    shown.push_back(&s);
  const bool summarized = !all_sms && t.sms.size() > kFullTableLines;
  if (summarized) {
    out += sm_summary(t);
    std::stable_sort(shown.begin(), shown.end(), [](const SmSpan *x, const SmSpan *y) {
      return x->last_finish_ns > y->last_finish_ns;
    });
    shown.resize(kWorstFew);
  } else {
    out += "\n  per SM\n";
  }
  Table sms({"SM", "ctas", "first start", "last finish", "span", "max at once"});
  const size_t limit = all_sms ? shown.size() : kMaxLines;
  for (size_t i = 0; i < shown.size() && i < limit; ++i) {
    const SmSpan &s = *shown[i];
    sms.add({count(s.smid), count(s.ctas), num(s.first_start_ns, 1), num(s.last_finish_ns, 1),
             num(s.last_finish_ns - s.first_start_ns, 1), count(s.max_concurrent)});
  }
  out += sms.str("    ") + (summarized ? "" : more_line(limit, t.sms.size(), "SMs"));
  if (!all_sms && t.concurrency.size() > kFullTableLines) {
    const ConcurrencyStep &peak = *std::max_element(
        t.concurrency.begin(), t.concurrency.end(),
        [](const ConcurrencyStep &x, const ConcurrencyStep &y) { return x.running < y.running; });
    return out + "\n  CTAs running: " + count(t.concurrency.size()) + " steps, at most " +
           count(peak.running) + " from " + num(peak.at_ns, 1) + " ns (--sms lists the steps)\n\n";
  }
  out += "\n  CTAs running (steps: from this time on, this many)\n";
  Table steps({"at ns", "running"});
  const size_t max_steps = all_sms ? t.concurrency.size() : kFullTableLines;
  for (size_t i = 0; i < t.concurrency.size() && i < max_steps; ++i)
    steps.add({num(t.concurrency[i].at_ns, 1), count(t.concurrency[i].running)});
  return out + steps.str("    ") + more_line(max_steps, t.concurrency.size(), "steps") + "\n";
}

std::string format_histograms(const std::vector<Histogram> &hs) {
  std::string out = "duration histograms (every slice of a name, all CTAs and rows; ns)\n";
  if (hs.empty())
    return out + "  no slice\n\n";
  constexpr size_t kBar = 40;
  for (const Histogram &h : hs) {
    if (h.min_ns == h.max_ns) { // one distinct value: no bins to draw
      out += "  " + printable(h.name) + ": " + count(h.count) +
             (h.count == 1 ? " slice of " : " slices, all ") + num(h.min_ns, 1) + " ns" +
             (h.incomplete ? " (" + count(h.incomplete) + " incomplete)" : "") + "\n";
      continue;
    }
    if (!h.values.empty()) { // no more slices than bins: each one, not mostly empty bins
      std::string values;
      for (double v : h.values)
        values += (values.empty() ? "" : " ") + num(v, 1);
      out += "  " + printable(h.name) + ": " + count(h.count) + " slices (no more than " +
             count(h.bins.size()) + " bins), ns: " + values +
             (h.incomplete ? " (" + count(h.incomplete) + " incomplete)" : "") + "\n";
      continue;
    }
    out += "  " + printable(h.name) + ": " + count(h.count) + " slices, " + num(h.min_ns, 1) +
           " .. " + num(h.max_ns, 1) + " ns, " + count(h.bins.size()) + " bins of " +
           num(h.bin_width_ns, 3) + " ns\n";
    if (h.incomplete)
      out += "    " + count(h.incomplete) +
             " of them incomplete: cut at their row's last event, "
             "so shorter than they ran\n";
    const uint64_t most = *std::max_element(h.bins.begin(), h.bins.end());
    const int decimals = h.bin_width_ns >= 1 || h.bin_width_ns == 0 ? 1 : 3; // narrow bins apart
    Table t({"from ns", "to ns", "count", ""});
    for (size_t i = 0; i < h.bins.size(); ++i) {
      const double from = h.min_ns + double(i) * h.bin_width_ns;
      const size_t bar =
          most ? size_t(std::ceil(double(kBar) * double(h.bins[i]) / double(most))) : 0;
      t.add({num(from, decimals), num(from + h.bin_width_ns, decimals), count(h.bins[i]),
             std::string(bar, '#') + std::string(kBar - bar, ' ')}); // padded: left-aligned
    }
    out += t.str("    ");
  }
  return out + "\n";
}

std::string format_outliers(const std::vector<Outlier> &os) {
  std::string out = "slowest " + count(os.size()) + " slices\n";
  Table t({"name", "cta", "SM", "row", "label", "payload", "begin ns", "duration ns", "begin cyc",
           "duration cyc"});
  for (const Outlier &o : os)
    t.add({printable(o.name) + (o.incomplete ? " (incomplete)" : ""), count(o.cta), count(o.smid),
           count(o.row), printable(o.label), std::to_string(o.payload), num(o.begin_ns, 1),
           num(o.duration_ns, 1), count(o.begin_cycles), count(o.duration_cycles)});
  return out + t.str() + "\n";
}

std::string format_loops(const std::vector<LoopReport> &loops) {
  std::string out = "loop iterations across rows (per name repeated in a row: iterations = its "
                    "largest payload + 1; span = first begin .. last end, ns)\n";
  if (loops.empty())
    return out + "  no slice name repeats in a row\n\n";
  Table t(
      {"name", "rows", "iterations min", "p50", "max", "span p50 ns", "p95", "max", "max / p50"});
  for (const LoopReport &l : loops) {
    uint64_t least = l.rows.empty() ? 0 : l.rows.front().iterations;
    for (const LoopRow &r : l.rows)
      least = std::min(least, r.iterations);
    t.add({printable(l.name), count(l.rows.size()), count(least), num(l.iterations.p50, 0),
           num(l.iterations.max, 0), num(l.span_ns.p50, 1), num(l.span_ns.p95, 1),
           num(l.span_ns.max, 1), l.span_ns.p50 > 0 ? num(l.span_ns.max / l.span_ns.p50, 2) : "-"});
  }
  out += t.str();
  for (const LoopReport &l : loops) {
    std::vector<LoopRow> longest = l.rows;
    std::sort(longest.begin(), longest.end(), [](const LoopRow &a, const LoopRow &b) {
      return a.span_ns() != b.span_ns() ? a.span_ns() > b.span_ns() : a.row < b.row;
    });
    longest.resize(std::min(longest.size(), kWorstFew));
    out += "  the " + count(longest.size()) + " longest spans of " + printable(l.name) + "\n";
    Table w({"cta", "SM", "row", "label", "iterations", "stored", "begin ns", "span ns"});
    for (const LoopRow &r : longest)
      w.add({count(r.cta), count(r.smid), count(r.row), printable(r.label), count(r.iterations),
             count(r.stored), num(r.first_begin_ns, 1), num(r.span_ns(), 1)});
    out += w.str("    ");
  }
  return out + "\n";
}

std::string format_window(const WindowStats &w) {
  const bool ns = w.axis == WindowAxis::ns;
  const std::string unit = ns ? "ns" : "cyc";
  const int decimals = ns ? 1 : 0;
  std::string out = "window " + num(w.begin, decimals) + " .. " + num(w.end, decimals) + " " +
                    unit +
                    (ns ? " (global axis, ns since the launch's earliest row start)"
                        : " (the CTA's cycles since its first event)") +
                    ": slices that intersect it, instants inside it\n";
  Table t({"name", "count", "inside " + unit, "full " + unit});
  for (const WindowName &n : w.slices)
    t.add({printable(n.name), count(n.count), num(n.clipped, decimals), num(n.full, decimals)});
  for (const auto &[name, n] : w.instants)
    t.add({printable(name) + " (instant)", count(n)});
  if (w.slices.empty() && w.instants.empty())
    return out + "  nothing in the window\n\n";
  return out + t.str() + "\n";
}

json durations_json(const Durations &d) {
  return {{"total", d.total}, {"mean", d.mean}, {"p50", d.p50}, {"p95", d.p95}, {"max", d.max}};
}

json busy_json(const BusyTotals &b) {
  json names = json::array();
  for (const NameTime &n : b.names)
    names.push_back({{"name", n.name}, {"ns", n.ns}});
  return {{"name", b.name},
          {"names", names},
          {"group", b.group},
          {"ctas", b.ctas},
          {"rows", b.rows},
          {"rows_with_gaps", b.rows_with_gaps},
          {"life_ns", b.life_ns},
          {"busy_ns", b.busy_ns},
          {"wait_ns", b.wait_ns},
          {"busy_excluding_waits_ns", b.busy_excluding_waits_ns()},
          {"idle_ns", b.idle_ns()},
          {"busy_fraction", b.busy_fraction()},
          {"wait_fraction", b.wait_fraction()},
          {"busy_excluding_waits_fraction", b.busy_excluding_waits_fraction()}};
}

json cta_json(const CtaSpan &c) {
  return {{"cta", c.cta},
          {"sm", c.smid},
          {"start_ns", c.start_ns},
          {"finish_ns", c.finish_ns},
          {"cut", c.cut}};
}

} // namespace

std::string format_analysis(const AnalysisReport &r) {
  const BufferHeader &h = r.header;
  std::string out = "kernel " + printable(r.kernel) + "  launch " + count(r.launch) + "  grid (" +
                    count(h.grid[0]) + "," + count(h.grid[1]) + "," + count(h.grid[2]) +
                    ")  block (" + count(h.block[0]) + "," + count(h.block[1]) + "," +
                    count(h.block[2]) + ")";
  if (r.cta)
    out += "  CTA " + count(*r.cta) + " only";
  out += "\n" + completeness_line(r.completeness) + "\n\n";
  out += format_verdict(r);
  if (r.busy)
    out += format_time(*r.busy, r.all_rows);
  if (r.handoffs)
    out += format_handoffs(*r.handoffs);
  if (r.busy)
    out += format_busy(*r.busy, r.all_rows);
  if (r.tail)
    out += format_tail(*r.tail, r.all_sms);
  if (r.histograms)
    out += format_histograms(*r.histograms);
  if (r.outliers)
    out += format_outliers(*r.outliers);
  if (r.loops)
    out += format_loops(*r.loops);
  if (r.window)
    out += format_window(*r.window);
  while (out.size() > 1 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n')
    out.pop_back();
  return out;
}

std::string analysis_json(const AnalysisReport &r) {
  json out = {{"kernel", r.kernel},
              {"launch", r.launch},
              {"grid", {r.header.grid[0], r.header.grid[1], r.header.grid[2]}},
              {"block", {r.header.block[0], r.header.block[1], r.header.block[2]}},
              {"cta", r.cta ? json(*r.cta) : json(nullptr)},
              {"completeness", completeness_json(r.completeness)}};
  if (r.handoffs) {
    json pairs = json::array();
    for (const HandoffPair &p : *r.handoffs)
      pairs.push_back({{"src", p.src},
                       {"dst", p.dst},
                       {"count", p.count},
                       {"waited", p.waited},
                       {"incomplete", p.incomplete},
                       {"dst_rows", p.dst_rows},
                       {"dst_life_ns", p.dst_life_ns},
                       {"dst_slices", p.dst_slices},
                       {"unpaired_dst", p.unpaired_dst},
                       {"measures_issue", p.measures_issue()},
                       {"ready_name", p.ready_name},
                       {"ready_count", p.ready_count},
                       {"issue_to_ready_ns", durations_json(p.issue_to_ready_ns)},
                       {"issue_to_ready_cycles", durations_json(p.issue_to_ready_cycles)},
                       {"wait_fraction", p.wait_fraction()},
                       {"wait_ns", durations_json(p.wait_ns)},
                       {"wait_cycles", durations_json(p.wait_cycles)},
                       {"gap_ns", durations_json(p.gap_ns)},
                       {"gap_cycles", durations_json(p.gap_cycles)},
                       {"after_ns", durations_json(p.after_ns)},
                       {"after_cycles", durations_json(p.after_cycles)}});
    out["handoffs"] = pairs;
  }
  if (r.busy) {
    json groups = json::array(), labels = json::array(), rows = json::array();
    for (const BusyTotals &g : r.busy->groups)
      groups.push_back(busy_json(g));
    for (const BusyTotals &l : r.busy->labels)
      labels.push_back(busy_json(l));
    for (const RowBusy &b : r.busy->rows)
      rows.push_back({{"row", b.row},
                      {"cta", b.cta},
                      {"sm", b.smid},
                      {"group", b.group},
                      {"label", b.label},
                      {"life_ns", b.life_ns},
                      {"busy_ns", b.busy_ns},
                      {"wait_ns", b.wait_ns},
                      {"busy_excluding_waits_ns", b.busy_excluding_waits_ns()},
                      {"idle_ns", b.idle_ns()},
                      {"dropped", b.dropped},
                      {"never_ended", b.never_ended},
                      {"incomplete", b.incomplete}});
    out["busy"] = {{"groups", groups}, {"labels", labels}, {"rows", rows}};
  }
  if (r.tail) {
    const TailReport &t = *r.tail;
    json ctas = json::array(), last = json::array(), sms = json::array(), steps = json::array();
    for (const CtaSpan &c : t.ctas)
      ctas.push_back(cta_json(c));
    for (const CtaSpan &c : t.last)
      last.push_back(cta_json(c));
    for (const SmSpan &s : t.sms)
      sms.push_back({{"sm", s.smid},
                     {"ctas", s.ctas},
                     {"first_start_ns", s.first_start_ns},
                     {"last_finish_ns", s.last_finish_ns},
                     {"max_concurrent", s.max_concurrent}});
    for (const ConcurrencyStep &s : t.concurrency)
      steps.push_back({{"at_ns", s.at_ns}, {"running", s.running}});
    out["tail"] = {{"kernel_start_ns", t.kernel_start_ns},
                   {"kernel_end_ns", t.kernel_end_ns},
                   {"p95_finish_ns", t.p95_finish_ns},
                   {"tail_ns", t.tail_ns},
                   {"last_lag_ns", t.last_lag_ns},
                   {"cta_duration_ns", durations_json(t.cta_duration_ns)},
                   {"max_concurrent_per_sm", t.max_concurrent_per_sm},
                   {"waves", t.waves},
                   {"full_waves", t.full_waves},
                   {"last", last},
                   {"ctas", ctas},
                   {"sms", sms},
                   {"concurrency", steps}};
  }
  if (r.histograms) {
    json hs = json::array();
    for (const Histogram &h : *r.histograms)
      hs.push_back({{"name", h.name},
                    {"count", h.count},
                    {"incomplete", h.incomplete},
                    {"min_ns", h.min_ns},
                    {"max_ns", h.max_ns},
                    {"bin_width_ns", h.bin_width_ns},
                    {"bins", h.bins},
                    {"values", h.values}});
    out["histograms"] = hs;
  }
  if (r.outliers) {
    json os = json::array();
    for (const Outlier &o : *r.outliers)
      os.push_back({{"name", o.name},
                    {"row", o.row},
                    {"cta", o.cta},
                    {"sm", o.smid},
                    {"label", o.label},
                    {"payload", o.payload},
                    {"begin_ns", o.begin_ns},
                    {"duration_ns", o.duration_ns},
                    {"begin_cycles", o.begin_cycles},
                    {"duration_cycles", o.duration_cycles},
                    {"incomplete", o.incomplete}});
    out["outliers"] = os;
  }
  if (r.loops) {
    json ls = json::array();
    for (const LoopReport &l : *r.loops) {
      json rows = json::array();
      for (const LoopRow &x : l.rows)
        rows.push_back({{"row", x.row},
                        {"cta", x.cta},
                        {"sm", x.smid},
                        {"label", x.label},
                        {"iterations", x.iterations},
                        {"stored", x.stored},
                        {"first_begin_ns", x.first_begin_ns},
                        {"last_end_ns", x.last_end_ns}});
      ls.push_back({{"name", l.name},
                    {"iterations", durations_json(l.iterations)},
                    {"span_ns", durations_json(l.span_ns)},
                    {"rows", rows}});
    }
    out["loops"] = ls;
  }
  if (r.window) {
    const WindowStats &w = *r.window;
    const std::string unit = w.axis == WindowAxis::ns ? "_ns" : "_cycles";
    json slices = json::array(), instants = json::array();
    for (const WindowName &n : w.slices)
      slices.push_back({{"name", n.name},
                        {"count", n.count},
                        {"clipped" + unit, n.clipped},
                        {"full" + unit, n.full}});
    for (const auto &[name, n] : w.instants)
      instants.push_back({{"name", name}, {"count", n}});
    out["window"] = {{"axis", w.axis == WindowAxis::ns ? "ns" : "cycles"},
                     {"begin" + unit, w.begin},
                     {"end" + unit, w.end},
                     {"slices", slices},
                     {"instants", instants}};
  }
  return out.dump(1) + "\n";
}

} // namespace cutrace
