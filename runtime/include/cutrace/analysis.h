// Analyses of a decoded launch (docs/analysis.md): TRACE_DAG hand-offs, busy and idle time per
// group and row, tail and waves, per-name histograms, the slowest slices, and the statistics of a
// time window. Pure C++17, no CUDA: part of library `cutrace_analysis`. Every analysis reads the
// decoded Trace (cutrace/decode.h) and returns numbers; formatting is separate.
//
// Times: `_ns` on the global axis (ns since Trace::origin_ns), `_cycles` on the per-CTA axis
// (raw SM cycles; the rows of one CTA share one SM clock, so cycle differences across its rows are
// exact). "Row life" is row_start_ns .. row_end_ns (cutrace/export.h).
#ifndef CUTRACE_ANALYSIS_H
#define CUTRACE_ANALYSIS_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <cutrace/completeness.h>
#include <cutrace/decode.h>
#include <cutrace/export.h>

namespace cutrace {

// ---- Hand-offs (docs/analysis.md, "Hand-offs") ----

// One decoded Flow (src's end -> a point inside dst) measured.
struct HandoffTiming {
  double wait_ns = 0;     // max(0, src end - dst begin): time inside dst before src ended
  double gap_ns = 0;      // max(0, dst begin - src end): time from src's end to dst's begin
  double after_ns = 0;    // dst end - max(dst begin, src end): dst after the hand-off
  double wait_cycles = 0; // the same three on the CTA's cycle axis
  double gap_cycles = 0;
  double after_cycles = 0;
};
HandoffTiming handoff_timing(const Trace &trace, const Flow &flow);

// One TRACE_DAG pair of the map over all CTAs of the trace (its flows, as match_flows paired
// them: by payload, or the i-th src with the i-th dst; skipped backward pairs are not counted).
struct HandoffPair {
  std::string src, dst;
  uint64_t count = 0;  // flows
  uint64_t waited = 0; // flows with wait > 0
  Durations wait_ns, wait_cycles, gap_ns, gap_cycles, after_ns, after_cycles;
  uint64_t incomplete = 0; // flows whose src or dst slice is incomplete (cut, never ended)
  // The denominator of the wait fraction: every started row holding a slice named dst, paired
  // or not (docs/analysis.md, "Hand-offs").
  uint32_t dst_rows = 0;
  double dst_life_ns = 0; // Σ life of those rows
  uint64_t dst_slices = 0; // slices named dst in the trace
  uint64_t unpaired_dst = 0; // of them, the dst of no flow (several consumers of one src)
  // Every hand-off has a gap (no dst began before its src ended): src ends when the transfer is
  // issued (an async copy), so the arrow measures issue, not arrival.
  bool measures_issue() const { return count > 0 && waited == 0; }
  // Issue -> ready: from src's end to the end of the range just before dst on dst's row (the
  // consumer's own wait, `ready_name`), over the `ready_count` flows whose preceding range has
  // that name and ends after src (docs/analysis.md, "Hand-offs").
  std::string ready_name;
  uint64_t ready_count = 0;
  Durations issue_to_ready_ns, issue_to_ready_cycles;
  double wait_fraction() const { return dst_life_ns > 0 ? wait_ns.total / dst_life_ns : 0; }
};
// In the map's TRACE_DAG order (a declaration with no flow in the trace has count 0).
std::vector<HandoffPair> analyze_handoffs(const DecodeMap &map, const Trace &trace);

// ---- Busy and idle (docs/analysis.md, "Busy and idle") ----

// busy: length of the union of the row's slices (all lanes; nested or overlapping counted once)
// within its life; idle = life - busy. wait: length of the union of the wait intervals
// [dst begin, min(src end, dst end)] of the row's dst slices within its busy time;
// busy_excluding_waits = busy - wait.
struct RowBusy {
  uint32_t row = 0; // index into Trace::rows
  uint32_t cta = 0, smid = 0, group = 0;
  std::string label; // Row::label
  double life_ns = 0, busy_ns = 0, wait_ns = 0;
  uint32_t dropped = 0;     // events the row lost to overflow
  bool never_ended = false; // Row::never_ended(): its life ends at its last event
  uint32_t incomplete = 0;  // its incomplete slices
  bool gaps() const { return dropped || never_ended || incomplete; }
  double idle_ns() const { return life_ns - busy_ns; }
  double busy_excluding_waits_ns() const { return busy_ns - wait_ns; }
};

// The same sums over the started rows of one group, or of one row label over the CTAs.
// Time inside the slices of one range name.
struct NameTime {
  std::string name;
  double ns = 0; // Σ over rows of the union of the name's slices, clipped to the row's life
};

struct BusyTotals {
  std::string name; // the group's name, or the row label
  uint32_t group = 0;
  uint32_t rows = 0, ctas = 0;
  uint32_t rows_with_gaps = 0; // rows that dropped events, never ended or hold incomplete slices
  double life_ns = 0, busy_ns = 0, wait_ns = 0;
  // Time by range name, most first; a range nested in another counts in both names.
  std::vector<NameTime> names;
  double idle_ns() const { return life_ns - busy_ns; }
  double busy_excluding_waits_ns() const { return busy_ns - wait_ns; }
  double busy_fraction() const { return life_ns > 0 ? busy_ns / life_ns : 0; }
  double wait_fraction() const { return life_ns > 0 ? wait_ns / life_ns : 0; }
  double busy_excluding_waits_fraction() const {
    return life_ns > 0 ? busy_excluding_waits_ns() / life_ns : 0;
  }
};

struct BusyReport {
  std::vector<BusyTotals> groups; // in group index order
  std::vector<BusyTotals> labels; // per row label (e.g. consumer[w3]), in group then slice order
  std::vector<RowBusy> rows;      // every started row, in buffer order
};
BusyReport analyze_busy(const DecodeMap &map, const Trace &trace);

// ---- Tail, imbalance and waves (docs/analysis.md, "Tail, imbalance and waves") ----

struct CtaSpan {
  uint32_t cta = 0, smid = 0;
  double start_ns = 0;  // earliest row start of the CTA
  double finish_ns = 0; // latest row end of the CTA
  bool cut = false;     // a row of it never ended: its finish is its last event, not its end
};

struct SmSpan {
  uint32_t smid = 0;
  uint32_t ctas = 0;
  double first_start_ns = 0, last_finish_ns = 0;
  uint32_t max_concurrent = 0; // most of its CTAs running at one time
};

struct ConcurrencyStep {
  double at_ns = 0;     // from here on...
  uint32_t running = 0; // ...this many CTAs run (until the next step)
};

struct TailReport {
  std::vector<CtaSpan> ctas;  // CTAs with a started row, by CTA index
  std::vector<SmSpan> sms;    // by SM id
  std::vector<CtaSpan> last;  // the last ceil(5% of CTAs) (at least 1) to finish, latest first
  double kernel_start_ns = 0; // earliest CTA start
  double kernel_end_ns = 0;   // latest CTA finish
  double p95_finish_ns = 0;   // finish of the CTA at the 95th percentile (nearest rank)
  double tail_ns = 0;         // kernel_end_ns - p95_finish_ns
  // Below kFewCtas CTAs the 95th percentile is the last CTA (tail 0): the answers give instead
  // how long after the next-to-last CTA the last one finished (0 with one CTA).
  static constexpr size_t kFewCtas = 20;
  double last_lag_ns = 0;
  bool few_ctas() const { return ctas.size() < kFewCtas; }
  Durations cta_duration_ns;  // finish - start per CTA
  uint32_t max_concurrent_per_sm = 0;       // max over SMs of SmSpan::max_concurrent
  uint32_t waves = 0;                       // max over SMs of ceil(ctas / max_concurrent)
  double full_waves = 0;                    // CTAs / (SMs used x max_concurrent_per_sm)
  std::vector<ConcurrencyStep> concurrency; // CTAs running in the whole launch, as steps
};
TailReport analyze_tail(const Trace &trace);

// ---- Histograms and outliers (docs/analysis.md, "Histograms and outliers") ----

// Durations (end_ns - begin_ns) of every slice of one name, across CTAs and rows, in `bins` equal
// bins from min to max (bin i holds [min + i*width, min + (i+1)*width), the last also max).
struct Histogram {
  std::string name;
  uint64_t count = 0;
  uint64_t incomplete = 0; // incomplete slices among them (their durations are cut short)
  double min_ns = 0, max_ns = 0, bin_width_ns = 0;
  std::vector<uint64_t> bins;
  // Every duration, shortest first, when there are no more slices than bins (binning them would
  // leave most bins empty); empty otherwise.
  std::vector<double> values;
};
// One histogram per slice name (sorted by name), or only `name`'s.
std::vector<Histogram> duration_histograms(const Trace &trace, uint32_t bins,
                                           const std::optional<std::string> &name = {});

struct Outlier {
  std::string name;
  uint32_t row = 0, cta = 0, smid = 0;
  std::string label; // Row::label
  int32_t payload = 0;
  double begin_ns = 0, duration_ns = 0;
  uint64_t begin_cycles = 0, duration_cycles = 0;
  bool incomplete = false; // the slice never ended: its duration runs to the row's last event
};
// The `n` longest slices (of `name` only, when given), longest first; ties by CTA, row, begin.
std::vector<Outlier> slowest_slices(const Trace &trace, size_t n,
                                    const std::optional<std::string> &name = {});

// ---- Loop iterations across rows (docs/analysis.md, "Loop iterations across rows") ----

// One row's slices of one name.
struct LoopRow {
  uint32_t row = 0, cta = 0, smid = 0;
  std::string label;
  uint64_t iterations = 0; // the largest payload + 1 (the payload is the iteration's index)
  uint64_t stored = 0;     // slices present (sampled iterations: fewer than iterations)
  double first_begin_ns = 0, last_end_ns = 0;
  double span_ns() const { return last_end_ns - first_begin_ns; }
};

struct LoopReport {
  std::string name;
  std::vector<LoopRow> rows; // by row
  Durations iterations;      // over the rows (total = every iteration of every row)
  Durations span_ns;         // last end - first begin, over the rows
};
// Every slice name some row holds at least twice, sorted by name.
std::vector<LoopReport> analyze_loops(const Trace &trace);
// Whether the map's loop ranges are the ones `--auto` writes ("for (line 12)", "while (line 3)",
// "do (line 7)"): `trace-view analyze` then runs analyze_loops by default (docs/analysis.md).
bool has_automatic_loops(const DecodeMap &map);

// ---- Statistics of a time window (docs/analysis.md, "Statistics of a time window") ----

// The window's axis: global ns since Trace::origin_ns, or the per-CTA cycles (of a trace
// restricted to one CTA, cutrace::restrict_to_cta).
enum class WindowAxis { ns, cycles };

struct WindowName {
  std::string name;
  uint64_t count = 0; // slices with begin <= window end and end >= window begin
  double clipped = 0; // Σ min(end, window end) - max(begin, window begin), in the axis's unit
  double full = 0;    // Σ end - begin
};

struct WindowStats {
  WindowAxis axis = WindowAxis::ns;
  double begin = 0, end = 0;
  std::vector<WindowName> slices; // by name
  std::vector<std::pair<std::string, uint64_t>>
      instants; // by name: instants with begin <= t <= end
};
WindowStats window_statistics(const Trace &trace, WindowAxis axis, double begin, double end);

// ---- Terminal tables and JSON (`trace-view analyze`) ----

// The analyses of one launch that were asked for (an absent one is neither printed nor in JSON).
struct AnalysisReport {
  std::string kernel;
  BufferHeader header;
  uint64_t launch = 0;         // the launch's sequence number in its run
  std::optional<uint32_t> cta; // the trace was restricted to this CTA
  Completeness completeness;   // of the (restricted) trace
  bool all_rows = false;       // the per-row table in full (--rows); else summarized
  bool all_sms = false;        // the per-SM table and CTAs-running steps in full (--sms)
  std::optional<std::vector<HandoffPair>> handoffs;
  std::optional<BusyReport> busy;
  std::optional<TailReport> tail;
  std::optional<std::vector<Histogram>> histograms;
  std::optional<std::vector<Outlier>> outliers;
  std::optional<std::vector<LoopReport>> loops;
  std::optional<WindowStats> window;
};
// The answers (one line per question the analyses present answer), then aligned tables in the
// order of the fields above; a per-row or per-SM table of more than kFullTableLines lines is
// summarized (min/median/max and the worst few) unless all_rows / all_sms.
inline constexpr size_t kFullTableLines = 16;
std::string format_analysis(const AnalysisReport &report);
// One JSON object; keys documented in docs/analysis.md.
std::string analysis_json(const AnalysisReport &report);

} // namespace cutrace

#endif // CUTRACE_ANALYSIS_H
