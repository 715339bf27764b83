// `trace-view analyze`: the analyses of one launch (docs/analysis.md) as aligned tables on stdout,
// or one JSON object with --json. Wiring only: the arguments are parsed in command_line.cpp, the
// analyses are in cutrace_analysis (cutrace/analysis.h).
#include "analyze.h"

#include "inputs.h"
#include "outputs.h"

#include <cutrace/analysis.h>
#include <cutrace/export.h>

#include <cstdio>
#include <optional>
#include <string>

namespace trace_view {

int analyze_command(const AnalyzeArgs &args) {
  cutrace::DecodeOptions options;
  options.ghz_override = args.ghz;
  options.run_marker_cost = !args.raw_times;
  LoadedLaunch launch = load_launch(args.input, args.launch, options, "--launch");
  cutrace::Trace &trace = launch.trace;
  if (args.cta) {
    if (*args.cta >= trace.header.num_ctas())
      input_error(args.input + ": no CTA " + std::to_string(*args.cta) + " (the grid has " +
                  std::to_string(trace.header.num_ctas()) + ")");
    trace = cutrace::restrict_to_cta(trace, *args.cta);
  }
  cutrace::AnalysisReport report;
  report.kernel = trace.kernel;
  report.header = trace.header;
  report.launch = launch.sequence;
  report.cta = args.cta;
  report.completeness = cutrace::completeness_of(trace);
  report.all_rows = args.rows;
  report.all_sms = args.sms;
  auto wanted = [&args](const char *what) { return args.only.count(what) != 0; };
  if (wanted("handoff"))
    report.handoffs = cutrace::analyze_handoffs(launch.map, trace);
  if (wanted("busy"))
    report.busy = cutrace::analyze_busy(launch.map, trace);
  if (wanted("tail"))
    report.tail = cutrace::analyze_tail(trace);
  if (wanted("histogram"))
    report.histograms = cutrace::duration_histograms(trace, args.bins, args.name);
  if (wanted("outliers"))
    report.outliers = cutrace::slowest_slices(trace, args.top, args.name);
  if (wanted("loops") || (args.only_default && cutrace::has_automatic_loops(launch.map)))
    report.loops = cutrace::analyze_loops(trace);
  if (args.window)
    report.window = cutrace::window_statistics(
        trace, args.cta ? cutrace::WindowAxis::cycles : cutrace::WindowAxis::ns, args.window->first,
        args.window->second);
  if (args.name && (wanted("histogram") || wanted("outliers")) &&
      (report.histograms ? report.histograms->empty() : report.outliers->empty()))
    std::fprintf(stderr, "trace-view: warning: %s: no slice is named '%s'\n", args.input.c_str(),
                 args.name->c_str());
  if (args.json)
    return write_output(*args.json, cutrace::analysis_json(report)) ? 0 : 1;
  return write_output("-", cutrace::format_analysis(report)) ? 0 : 1;
}

} // namespace trace_view
