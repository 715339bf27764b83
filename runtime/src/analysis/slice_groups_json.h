// The per-slice statistics of TRACE_GROUPS groups as JSON, one spelling for the launch JSON
// (trace_json.cpp) and the run summary JSON (export_run_summary.cpp). Internal to
// cutrace_analysis.
#ifndef CUTRACE_ANALYSIS_SLICE_GROUPS_JSON_H
#define CUTRACE_ANALYSIS_SLICE_GROUPS_JSON_H

#include <cutrace/export.h>

#include <nlohmann/json.hpp>

namespace cutrace {

inline nlohmann::json spread_json(const Spread &s) {
  return {{"min", s.min}, {"median", s.median}, {"max", s.max}};
}

inline nlohmann::json slice_groups_json(const std::vector<SliceGroupSummary> &groups) {
  nlohmann::json out = nlohmann::json::array();
  for (const SliceGroupSummary &g : groups) {
    nlohmann::json slices = nlohmann::json::array();
    for (const SliceRowSummary &s : g.slices)
      slices.push_back({{"slice", s.slice},
                        {"label", s.label},
                        {"rows", s.rows},
                        {"events", s.events},
                        {"busy_ns", s.busy_ns},
                        {"span_ns", s.span_ns},
                        {"busy_fraction", s.busy_fraction()}});
    out.push_back({{"group", g.group},
                   {"name", g.name},
                   {"slice_threads", g.slice_threads},
                   {"first_thread", g.first_thread},
                   {"slices", std::move(slices)},
                   {"busy_ns", spread_json(g.busy_ns)},
                   {"busy_fraction", spread_json(g.busy_fraction)},
                   {"events", spread_json(g.events)}});
  }
  return out;
}

} // namespace cutrace

#endif // CUTRACE_ANALYSIS_SLICE_GROUPS_JSON_H
