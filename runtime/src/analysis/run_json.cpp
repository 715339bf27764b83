#include "run_json.h"

#include <algorithm>

namespace cutrace::run_json {

using json = nlohmann::json;

json process(const RunProcess &p) {
  json kernels = json::object();
  for (const auto &[name, counts] : p.kernel_launches)
    kernels[name] = {{"seen", counts.first},
                     {"recorded", counts.second},
                     {"skipped", counts.first - std::min(counts.first, counts.second)}};
  return {{"program", p.program},
          {"pid", p.pid},
          {"host", p.host},
          {"rank", p.rank},
          {"local_rank", p.local_rank},
          {"host_clock_error_ns", p.host_clock_error_ns ? json(*p.host_clock_error_ns) : json()},
          {"file", p.file},
          {"launches", p.launches},
          {"kernels", p.kernels},
          {"complete", p.complete},
          {"kernel_launches", kernels},
          {"pool_waits", p.pool_waits},
          {"pool_skipped", p.pool_skipped},
          {"disk_skipped", p.disk_skipped}};
}

json device(const RunDevice &d) {
  json out = {{"process", d.process},
          {"index", d.index},
          {"name", d.name},
          {"sms", d.sms},
          {"clock_khz", d.clock_khz},
          {"aligned", d.aligned},
          {"host_minus_gpu_ns", d.host_minus_gpu_ns},
          {"alignment_error_ns", d.alignment_error_ns},
          {"drift_ns", d.drift_ns},
          {"marker_cost", d.marker_cost ? json{{"range_begin", d.marker_cost->range_begin},
                                               {"range_end", d.marker_cost->range_end},
                                               {"event", d.marker_cost->event},
                                               {"taken_out", d.marker_cost_taken_out}}
                                        : json()},
          {"marker_cost_problem", d.marker_cost_problem}};
  if (d.aligned_at_end_only) // only then: earlier outputs keep their bytes
    out["aligned_at_end_only"] = true;
  return out;
}

json host_clock_bound(const RunTrace &run) {
  return run.host_clock_bound_ns ? json(*run.host_clock_bound_ns) : json();
}

} // namespace cutrace::run_json
