// `trace-view merge-torch`: reading the two inputs and wiring only; the matching and the trace
// are cutrace_analysis's (torch_merge.cpp).
#include "merge_torch.h"

#include "inputs.h"
#include "outputs.h"

#include <cutrace/torch_merge.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace trace_view {

int merge_torch_command(const MergeTorchArgs &args) {
  std::ifstream in(args.profiler, std::ios::binary);
  std::stringstream text;
  if (!in || !(text << in.rdbuf()))
    input_error("cannot read '" + args.profiler + "'");
  cutrace::RunReadOptions lean; // each launch's records are read when it is written
  lean.max_buffer_bytes = 0;
  const cutrace::Run raw = read_input(args.run, lean);
  cutrace::Expected<cutrace::RunTrace> run = cutrace::decode_run(raw, args.run);
  if (!run)
    input_error(args.run + ": " + run.error);
  const cutrace::RunTrace &decoded = *run;
  cutrace::TorchMergeOptions options;
  options.tolerance_ns = args.tolerance_us * 1000;
  options.load_detail = [&decoded](const cutrace::RunLaunch &l) {
    return cutrace::with_detail(decoded, l);
  };
  std::optional<cutrace::TorchMergeReport> report;
  std::string refused;
  Outputs out;
  out.add_streamed(args.output, [&](const cutrace::ByteSink &sink) -> std::optional<std::string> {
    cutrace::Expected<cutrace::TorchMergeReport> r =
        cutrace::merge_torch_profile(text.str(), decoded, sink, options);
    if (!r)
      return refused = r.error;
    report = std::move(*r);
    return std::nullopt;
  });
  if (!refused.empty())
    input_error(refused);
  if (!out.commit())
    return 1;
  std::printf("%llu profiler events (%llu kernels); %zu of %zu launches placed under their kernel "
              "slice, moved at most %.0f ns to fit inside it\n",
              static_cast<unsigned long long>(report->profiler_events),
              static_cast<unsigned long long>(report->profiler_kernels), report->matched.size(),
              decoded.launches.size(), report->max_shift_ns);
  if (report->clock_offset_ns != 0)
    std::printf("the profiler's clock is %.1f us %s the run's host clock: the run was lined up "
                "from its launches (docs/torch.md, \"Matching\")\n",
                std::fabs(report->clock_offset_ns) / 1e3,
                report->clock_offset_ns > 0 ? "ahead of" : "behind");
  for (const auto &[sequence, why] : report->unmatched)
    std::printf("launch %llu not placed: %s\n", static_cast<unsigned long long>(sequence),
                why.c_str());
  return 0;
}

} // namespace trace_view
