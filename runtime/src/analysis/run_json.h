// A run's processes and GPUs as JSON objects, one spelling for every export that writes them
// (the run summary JSON and the run page's data). Internal to cutrace_analysis.
#ifndef CUTRACE_ANALYSIS_RUN_JSON_H
#define CUTRACE_ANALYSIS_RUN_JSON_H

#include <cutrace/run_trace.h>

#include <nlohmann/json.hpp>

namespace cutrace::run_json {

// Program, pid, host, rank and local rank, the host clock's error bound, file, selection,
// completeness, per-kernel counts and the exit counters of the buffer pool and the disk bound.
nlohmann::json process(const RunProcess &p);
// Process index, ordinal, name, SMs, clock, and the host clock alignment.
nlohmann::json device(const RunDevice &d);
// How far apart processes of different hosts may be placed (RunTrace::host_clock_bound_ns), ns;
// null when not known.
nlohmann::json host_clock_bound(const RunTrace &run);

} // namespace cutrace::run_json

#endif // CUTRACE_ANALYSIS_RUN_JSON_H
