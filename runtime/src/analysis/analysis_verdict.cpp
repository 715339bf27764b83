// The answers `trace-view analyze` opens with (docs/analysis.md, "Answers first"): one line per
// question the analyses asked for can answer, from their numbers; the detail follows.
#include "analysis_verdict.h"

#include "summary_table.h"

#include <algorithm>
#include <cmath>

namespace cutrace {

namespace {

using namespace summary_table;

std::string percent(double fraction) { return num(100 * fraction, 1) + "%"; }

// How many dst slices no flow reached (several consumers of one src), or "".
std::string unpaired_note(const HandoffPair &p) {
  if (!p.unpaired_dst)
    return "";
  return "; " + count(p.unpaired_dst) + " of " + count(p.dst_slices) + " " + printable(p.dst) +
         " slices got no hand-off (each " + printable(p.src) + " pairs with one " +
         printable(p.dst) + ")";
}

// The pair whose waits take the largest share of its destination rows' life; when its src ends
// before any dst begins (an async copy), what the arrow can tell: issue -> the consumer's wait.
std::string handoff_answer(const std::vector<HandoffPair> &pairs) {
  const HandoffPair *worst = nullptr;
  for (const HandoffPair &p : pairs)
    if (p.count && (!worst || p.wait_fraction() > worst->wait_fraction()))
      worst = &p;
  if (pairs.empty())
    return "no TRACE_DAG pair declared";
  if (!worst)
    return "no hand-off was recorded";
  const std::string src = printable(worst->src), dst = printable(worst->dst);
  std::string out;
  if (worst->measures_issue()) {
    out = src + " -> " + dst + ": the arrow measures issue (no " + dst + " began before its " +
          src + " ended: " + src + " ends when the transfer is issued); ";
    out += worst->ready_name.empty()
               ? "no range before " + dst + " on its row shows when the data arrived"
               : "issue -> end of the consumer's " + printable(worst->ready_name) + " mean " +
                     num(worst->issue_to_ready_ns.mean, 1) + " ns, p95 " +
                     num(worst->issue_to_ready_ns.p95, 1) + " ns (" +
                     count(worst->ready_count) + " of " + count(worst->count) + " hand-offs)";
  } else {
    out = dst + " waits for " + src + " " + percent(worst->wait_fraction()) +
          " of its rows' life (mean " + num(worst->wait_ns.mean, 1) + " ns, p95 " +
          num(worst->wait_ns.p95, 1) + " ns per hand-off; " + count(worst->waited) + " of " +
          count(worst->count) + " waited)";
  }
  if (worst->incomplete)
    out += "; " + count(worst->incomplete) + " over incomplete slices";
  return out + unpaired_note(*worst);
}

// Per group, its largest range names as shares of its rows' life.
std::string time_answer(const BusyReport &b) {
  constexpr size_t kNames = 3;
  std::string out;
  for (const BusyTotals &g : b.groups) {
    std::string names;
    for (size_t i = 0; i < g.names.size() && i < kNames; ++i)
      names += (i ? ", " : "") + percent(g.life_ns > 0 ? g.names[i].ns / g.life_ns : 0) + " " +
               printable(g.names[i].name);
    if (g.names.size() > kNames)
      names += ", " + count(g.names.size() - kNames) + " more";
    out += (out.empty() ? "" : "; ") + printable(g.name) + " " +
           (names.empty() ? std::string("no range") : names);
  }
  return out.empty() ? "no row started" : out;
}

// Busiest and least busy group by busy share, each with the share spent waiting on hand-offs.
std::string busy_answer(const BusyReport &b) {
  if (b.groups.empty())
    return "no row started";
  auto share = [](const BusyTotals &g) {
    // "in ranges", not "busy": time blocked inside a range counts (docs/analysis.md)
    std::string s = printable(g.name) + " " + percent(g.busy_fraction()) + " in ranges";
    if (g.wait_ns > 0)
      s += " (" + percent(g.wait_fraction()) + " waiting on hand-offs, " +
           percent(g.busy_excluding_waits_fraction()) + " working)";
    return s;
  };
  auto by_working = [](const BusyTotals &x, const BusyTotals &y) {
    return x.busy_excluding_waits_fraction() < y.busy_excluding_waits_fraction();
  };
  // One group sliced into rows (a row per warp): its rows' labels are the groups to compare.
  const std::vector<BusyTotals> &of =
      b.groups.size() == 1 && b.labels.size() > 1 ? b.labels : b.groups;
  const BusyTotals &most = *std::max_element(of.begin(), of.end(), by_working);
  const BusyTotals &least = *std::min_element(of.begin(), of.end(), by_working);
  if (&most == &least)
    return share(most);
  const bool waits =
      std::any_of(of.begin(), of.end(), [](const BusyTotals &g) { return g.wait_ns > 0; });
  return (waits ? "most working " : "busiest ") + share(most) +
         (waits ? "; least working " : "; least busy ") + share(least);
}

} // namespace

std::string few_ctas_tail(const TailReport &t) {
  const double span = t.kernel_end_ns - t.kernel_start_ns;
  if (t.ctas.size() < 2)
    return "1 CTA: no other CTA to finish after";
  return count(t.ctas.size()) + " CTAs (under " + count(TailReport::kFewCtas) +
         ", the 95th percentile is the last CTA): the last CTA ends " + num(t.last_lag_ns, 1) +
         " ns after the next-to-last (" + percent(span > 0 ? t.last_lag_ns / span : 0) +
         " of the kernel's " + num(span, 1) + " ns)";
}

namespace {

std::string tail_answer(const TailReport &t) {
  const double span = t.kernel_end_ns - t.kernel_start_ns;
  if (t.few_ctas())
    return few_ctas_tail(t);
  return "the last 5% of CTAs end " + num(t.tail_ns, 1) + " ns after the rest (" +
         percent(span > 0 ? t.tail_ns / span : 0) + " of the kernel's " + num(span, 1) + " ns)";
}

std::string waves_answer(const TailReport &t) {
  // Observed, not occupancy's: the most CTAs one SM held at once is what the trace shows.
  return count(t.waves) + (t.waves == 1 ? " observed wave" : " observed waves") +
         " (max over SMs of its CTAs / the most it ran at once): " + count(t.ctas.size()) +
         " CTAs on " + count(t.sms.size()) + " SMs, at most " + count(t.max_concurrent_per_sm) +
         " at once per SM (" + num(t.full_waves, 2) + " full waves" +
         (std::fabs(t.full_waves - std::round(t.full_waves)) > 0.01
              ? ": the last wave is partly empty)"
              : ")");
}

std::string imbalance_answer(const TailReport &t) {
  const Durations &d = t.cta_duration_ns;
  std::string out = "CTA durations p50 " + num(d.p50, 1) + " ns, max " + num(d.max, 1) + " ns";
  if (d.p50 > 0)
    out += " (max is " + num(d.max / d.p50, 2) + " x p50)";
  return out;
}

// The loop whose rows are the least even (max span / p50 span), with its iteration counts.
std::string loops_answer(const std::vector<LoopReport> &loops) {
  if (loops.empty())
    return "no slice name repeats in a row (no loop iterations recorded)";
  auto skew = [](const LoopReport &l) {
    return l.span_ns.p50 > 0 ? l.span_ns.max / l.span_ns.p50 : 0.0;
  };
  const LoopReport &worst =
      *std::max_element(loops.begin(), loops.end(), [&](const LoopReport &a, const LoopReport &b) {
        return skew(a) < skew(b);
      });
  std::string out = printable(worst.name) + ": ";
  auto [lo, hi] = std::minmax_element(
      worst.rows.begin(), worst.rows.end(),
      [](const LoopRow &a, const LoopRow &b) { return a.iterations < b.iterations; });
  out += lo->iterations == hi->iterations
             ? count(lo->iterations) + " iterations in every row"
             : count(lo->iterations) + " to " + count(hi->iterations) + " iterations per row";
  out +=
      ", span p50 " + num(worst.span_ns.p50, 1) + " ns, max " + num(worst.span_ns.max, 1) + " ns";
  if (worst.span_ns.p50 > 0)
    out += " (max is " + num(skew(worst), 2) + " x p50)";
  if (loops.size() > 1)
    out += "; the least even of " + count(loops.size()) + " loops";
  return out;
}

} // namespace

std::string format_verdict(const AnalysisReport &r) {
  std::string out;
  auto add = [&out](const char *question, const std::string &answer) {
    out += "  " + std::string(question) + std::string(11 - std::string(question).size(), ' ') +
           answer + "\n";
  };
  if (r.busy)
    add("time", time_answer(*r.busy));
  if (r.handoffs)
    add("hand-offs", handoff_answer(*r.handoffs));
  if (r.busy)
    add("busy", busy_answer(*r.busy));
  if (r.tail && !r.tail->ctas.empty()) {
    add("tail", tail_answer(*r.tail));
    add("waves", waves_answer(*r.tail));
    add("imbalance", imbalance_answer(*r.tail));
  }
  if (r.loops)
    add("loops", loops_answer(*r.loops));
  if (out.empty())
    return "";
  if (!r.completeness.complete())
    add("caution", "the trace is INCOMPLETE (the line above): these figures are bounds");
  return "answers\n" + out + "\n";
}

} // namespace cutrace
