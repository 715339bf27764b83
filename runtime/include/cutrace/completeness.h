// What a decoded launch or run did not see (docs/analysis.md, "Completeness"): events dropped to
// overflow, slices that never closed, rows that never ended (a trapped or killed kernel), decode
// problems, and launches of a run that were not decoded. Every output of trace-view states it
// next to the figures it affects. Pure C++17, no CUDA: part of library `cutrace_analysis`.
#ifndef CUTRACE_COMPLETENESS_H
#define CUTRACE_COMPLETENESS_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <cutrace/decode.h>

namespace cutrace {

struct RunTrace;
struct RunLaunch;

// The gaps of one launch, or of several summed.
struct Completeness {
  uint64_t dropped_events = 0;    // Σ Row::dropped: events lost to a full row (overflow)
  uint32_t rows_overflowed = 0;   // rows that dropped events
  uint64_t incomplete_slices = 0; // Slice::incomplete: a BEGIN that never closed
  uint32_t rows_never_ended = 0;  // Row::never_ended(): the kernel trapped or was killed
  uint64_t decode_problems = 0;   // Trace::problems
  // The most record slots a row that dropped events attempted: the --max-events that keeps every
  // event of this trace (a derived figure: not compared by ==).
  uint32_t slots_needed = 0;
  // Where rows that dropped events got their capacity: from the host at launch (buffer header
  // word 15, bit 1: its budgets are the fix) or from the build's --max-events (a rebuild is).
  bool dropped_in_sized_rows = false;
  bool dropped_in_built_rows = false;
  // CTAs the launch did not record by the pool's rule (docs/guide.md, "Row capacity"): it kept
  // 1 CTA in cta_stride, each whole. Summed over a run; cta_stride is the largest.
  uint64_t ctas_left_out = 0;
  uint32_t cta_stride = 1;
  bool complete() const {
    return dropped_events == 0 && incomplete_slices == 0 && rows_never_ended == 0 &&
           decode_problems == 0 && ctas_left_out == 0;
  }
  void add(const Completeness &other);
  bool operator==(const Completeness &o) const {
    return dropped_events == o.dropped_events && rows_overflowed == o.rows_overflowed &&
           incomplete_slices == o.incomplete_slices && rows_never_ended == o.rows_never_ended &&
           decode_problems == o.decode_problems && ctas_left_out == o.ctas_left_out;
  }
  bool operator!=(const Completeness &o) const { return !(*this == o); }
};
Completeness completeness_of(const Trace &trace);
// A launch of a run: from its decoded rows, or, read without its records (RunReadOptions), from
// its row headers (RunLaunch::header_gaps: incomplete slices are then not known and count 0).
Completeness completeness_of(const RunLaunch &launch);

// "complete: no event dropped, every slice closed, every row ended", or
// "INCOMPLETE: 984 events dropped (overflow) on 24 rows; 24 incomplete slices; ..." naming only
// the gaps present.
std::string completeness_line(const Completeness &c);

// A launch of a run that has no figures in the outputs, and why (docs/analysis.md,
// "Completeness").
struct UndecodedLaunch {
  std::string file;                 // the process's input file
  std::optional<uint64_t> sequence; // unknown when its section was cut before its fixed fields
  std::string kernel;               // "" when unknown
  std::string why;
};

// The gaps of a whole run: the launches' gaps summed, and the launches missing from it.
struct RunCompleteness {
  // Over the decoded launches, as their row headers say (incomplete_slices 0: a run's figure is
  // the same whether its records were read or not; each launch's own completeness counts them).
  Completeness events;
  uint64_t launches = 0;                  // launch sections the files hold (read or not)
  uint64_t launches_decoded = 0;          // those with figures
  uint64_t launches_incomplete = 0;       // decoded launches with gaps
  std::vector<UndecodedLaunch> undecoded; // launches the run holds no figures of, and why
  // Launches the processes' END sections say were recorded but the files do not hold (a section
  // cut or skipped). Each is also in `undecoded` when its section could be identified.
  uint64_t recorded_not_in_file = 0;
  // Processes whose file has no END section (the program crashed or was killed): launches it
  // recorded after the last one in the file are not known.
  uint32_t unfinished_processes = 0;
  bool complete() const {
    return events.complete() && undecoded.empty() && recorded_not_in_file == 0 &&
           unfinished_processes == 0;
  }
};
RunCompleteness run_completeness(const RunTrace &run);
// One line per fact ("launches: 100 of 101 decoded", one line per undecoded launch, then the
// events' completeness_line), each starting with `indent`.
std::string run_completeness_text(const RunCompleteness &c, const std::string &indent = "");
// "launch 100 (ws_gemm, run.ctrace)"
std::string undecoded_name(const UndecodedLaunch &u);

} // namespace cutrace

#endif // CUTRACE_COMPLETENESS_H
