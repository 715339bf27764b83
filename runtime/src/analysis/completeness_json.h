// The JSON of a launch's or run's completeness, shared by every JSON output (keys in
// docs/analysis.md, "Completeness"). Internal to cutrace_analysis.
#ifndef CUTRACE_ANALYSIS_COMPLETENESS_JSON_H
#define CUTRACE_ANALYSIS_COMPLETENESS_JSON_H

#include <cutrace/completeness.h>

#include <nlohmann/json.hpp>

namespace cutrace {

inline nlohmann::json completeness_json(const Completeness &c) {
  nlohmann::json out = {{"complete", c.complete()},
                        {"dropped_events", c.dropped_events},
                        {"rows_overflowed", c.rows_overflowed},
                        {"incomplete_slices", c.incomplete_slices},
                        {"rows_never_ended", c.rows_never_ended},
                        {"decode_problems", c.decode_problems}};
  if (c.ctas_left_out) { // only where the pool's rule applied: earlier outputs stay as they were
    out["ctas_left_out"] = c.ctas_left_out;
    out["cta_stride"] = c.cta_stride;
  }
  return out;
}

inline nlohmann::json undecoded_json(const UndecodedLaunch &u) {
  return {{"file", u.file},
          {"sequence", u.sequence ? nlohmann::json(*u.sequence) : nlohmann::json(nullptr)},
          {"kernel", u.kernel},
          {"why", u.why}};
}

inline nlohmann::json run_completeness_json(const RunCompleteness &c) {
  nlohmann::json undecoded = nlohmann::json::array();
  for (const UndecodedLaunch &u : c.undecoded)
    undecoded.push_back(undecoded_json(u));
  nlohmann::json out = completeness_json(c.events);
  out["complete"] = c.complete();
  out["launches"] = c.launches;
  out["launches_decoded"] = c.launches_decoded;
  out["launches_incomplete"] = c.launches_incomplete;
  out["recorded_not_in_file"] = c.recorded_not_in_file;
  out["unfinished_processes"] = c.unfinished_processes;
  out["undecoded"] = undecoded;
  return out;
}

} // namespace cutrace

#endif
