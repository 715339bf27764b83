// Comparing two traces of one kernel (docs/analysis.md, "Comparing two traces"): per event name
// and per TRACE_DAG pair, the change in count, mean, p95 and total, sorted by impact, with the
// changes that lie within run-to-run noise marked. Pure C++17, no CUDA: part of library
// `cutrace_analysis`. Reads decoded launches (cutrace/decode.h) and the hand-off timings of
// cutrace/analysis.h; formatting is separate from the numbers.
#ifndef CUTRACE_DIFF_H
#define CUTRACE_DIFF_H

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <cutrace/completeness.h>
#include <cutrace/decode.h>
#include <cutrace/export.h>

namespace cutrace {

// One side of a comparison: one launch, or several launches of one kernel pooled (their slices
// and hand-offs as one sample, their CTAs summed).
struct DiffSide {
  std::string label; // what the tables call it: a file name, "file (launch 3)"
  std::vector<const Trace *> launches;
};

// What a row measures: every slice of a name, every instant of a name, or per decoded flow of a
// TRACE_DAG pair the wait inside dst (max(0, src end - dst begin)) or the gap before dst
// (max(0, dst begin - src end)), as docs/analysis.md, "Hand-offs", defines them.
enum class DiffKind { slice, handoff_wait, handoff_gap, instant };
const char *diff_kind_name(DiffKind kind); // "slice", "wait", "gap", "instant"

// One row's numbers on one side. Durations in ns on the global axis (slices: end - begin; hand-off
// rows: the wait or gap of each flow); instants have a count only.
struct DiffStats {
  uint64_t count = 0;
  uint64_t incomplete = 0; // slices that never ended; hand-offs over such a slice
  Durations ns;
  double mean_cycles = 0;
  uint64_t ctas = 0; // CTAs of the side (started rows), the normaliser of the per-CTA figures
  double total_per_cta_ns() const { return ctas ? ns.total / double(ctas) : 0; }
  double count_per_cta() const { return ctas ? double(count) / double(ctas) : 0; }
};

struct DiffRow {
  DiffKind kind = DiffKind::slice;
  std::string name; // event name, or "src -> dst" for a hand-off row
  DiffStats a, b;
  // |b - a| of total time per CTA (ns): what the row adds to or takes from each CTA. Instants: 0.
  double impact_ns = 0;
  // (b - a) / a of the row's measure per CTA (total time; instants: count). 0 when both are 0,
  // +-infinity when only a is 0.
  double relative = 0;
  double threshold = 0;        // the relative change up to which the row is noise (NoiseModel)
  bool measured_noise = false; // threshold from --noise-from traces (else the default)
  bool within_noise = false;   // |relative| <= threshold, or the change is below the resolution
  // The change would be noise, but the two sides' completeness differs (TraceDiff): it is not
  // called noise, and within_noise is false.
  bool noise_refused = false;
};

// Run-to-run noise. Per row, the largest |relative change| of its measure between two traces of
// one unchanged build (add_noise_measurement); a change A -> B within `factor` times that is noise.
// Rows no measurement has use the default thresholds. A change of total time per CTA smaller than
// `resolution_ns` per event per CTA is noise whatever the thresholds: below the timer's resolution.
struct NoiseModel {
  // Measured on an H200 (docs/analysis.md, "Comparing two traces"): the largest |relative change|
  // between two warm launches of one kernel in test/data/h200/runs/loop_1000_default.ctrace is
  // 4.6% for slice rows and 30.5% for hand-off rows (the load -> compute gap of matmul).
  static constexpr double kDefaultSliceThreshold = 0.05;   // slices and instants
  static constexpr double kDefaultHandoffThreshold = 0.35; // hand-off waits and gaps
  static constexpr double kDefaultFactor = 3;
  double slice_threshold = kDefaultSliceThreshold;
  double handoff_threshold = kDefaultHandoffThreshold;
  double factor = kDefaultFactor;
  double resolution_ns = 1;
  std::map<std::pair<DiffKind, std::string>, double> measured; // row -> max |relative| seen
  std::vector<std::string> sources;                            // "C vs D" per measured pair
  double default_threshold(DiffKind kind) const;
  double threshold(DiffKind kind, const std::string &name, bool *measured_here = nullptr) const;
};

// Adds the |relative change| of every row between `c` and `d` (two traces of one build).
void add_noise_measurement(NoiseModel &noise, const DiffSide &c, const DiffSide &d);

// One figure of the whole kernel on both sides (ns), with its noise band.
struct KernelFigure {
  std::string what; // "kernel p50", "CTA p50", "CTA p95"
  double a = 0, b = 0;
  double relative = 0;  // (b - a) / a
  double threshold = 0; // the relative change up to which it is noise (NoiseModel, as slices)
  bool within_noise = false;
};

// The whole-kernel line `diff` opens with: per side the kernel's duration (earliest row start to
// latest row end of a launch; the median over pooled launches) and its CTAs' durations (p50 and
// p95 over every CTA of the side).
std::vector<KernelFigure> kernel_figures(const DiffSide &a, const DiffSide &b,
                                         const NoiseModel &noise);

struct TraceDiff {
  std::string kernel_a, kernel_b;
  std::vector<KernelFigure> whole_kernel; // kernel_figures()
  std::string label_a, label_b;
  uint64_t launches_a = 0, launches_b = 0, ctas_a = 0, ctas_b = 0;
  double slice_threshold = 0, handoff_threshold = 0, factor = 0;
  std::vector<std::string> noise_sources;
  // Slice and hand-off rows by impact (largest first), then instants by |change of count per
  // CTA|; ties by kind, then name.
  std::vector<DiffRow> rows;
  std::vector<std::string> warnings; // different kernels (forced), grids, blocks, completeness
  // Each side's gaps (docs/analysis.md, "Completeness"); when they differ no change is noise.
  Completeness completeness_a, completeness_b;
  bool completeness_differs() const { return completeness_a != completeness_b; }
};

TraceDiff diff_traces(const DiffSide &a, const DiffSide &b, const NoiseModel &noise = {});

// Aligned terminal table of the first `top` rows (0: all).
std::string format_diff(const TraceDiff &diff, size_t top = 0);
// The same numbers as one JSON object (docs/analysis.md, "Comparing two traces").
std::string diff_json(const TraceDiff &diff);

} // namespace cutrace

#endif // CUTRACE_DIFF_H
