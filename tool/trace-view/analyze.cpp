// `trace-view analyze`: the analyses of one launch (docs/analysis.md) as aligned tables on stdout,
// or one JSON object with --json. Argument parsing and wiring only; the analyses are in
// cutrace_analysis (cutrace/analysis.h).
#include "analyze.h"

#include "inputs.h"
#include "outputs.h"

#include <cutrace/analysis.h>
#include <cutrace/export.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>
#include <string>

namespace trace_view {

namespace {

const char *kAnalyzeUsage =
    R"(usage: trace-view analyze FILE.ctrace [--launch N] [--cta N] [--only LIST] [--top N]
                          [--bins N] [--name NAME] [--window BEGIN:END] [--json OUT]
                          [--rows] [--sms] [--clock-ghz F]

Analyses of one launch (definitions in docs/analysis.md), printed on stdout: the launch's
completeness, one answer per question (biggest hand-off wait, most and least working group,
tail, waves, imbalance), then the tables:
  handoff     per TRACE_DAG pair: the wait inside dst (src end - dst begin), the gap (dst begin -
              src end), the part of dst after the hand-off; mean/p50/p95/max in ns and cycles;
              the fraction of the dst rows' life spent waiting
  busy        per group, row label and row: life, busy (union of slices, nested counted once),
              hand-off waits, busy excluding waits, idle
  tail        per CTA and SM start and finish, the last 5% of CTAs, tail length, waves (CTAs at
              once per SM) and the number of CTAs running over time
  histogram   per slice name: durations (ns) in --bins equal bins between min and max
  outliers    the --top slowest slices with CTA, SM, row label and payload
  loops       per slice name repeated in a row (a loop's iterations, payload = index): the
              iterations each row ran and their span, min/p50/max across rows, the longest
Options:
  --launch N        the launch with sequence number N (needed when the file holds several)
  --cta N           only CTA N (linear index); --window is then in that CTA's cycles
  --only LIST       comma-separated subset of handoff,busy,tail,histogram,outliers,loops
                    (default: all but loops)
  --top N           slowest slices shown (default 10; 0: all)
  --bins N          histogram bins (default 20)
  --name NAME       histograms and outliers of slices named NAME only
  --window B:E      statistics of the window [B, E] instead (ns since the launch's earliest row
                    start; cycles with --cta): per name, slices that intersect it, their time
                    inside it and in full; instants inside it. With --only, those analyses too.
  --rows            the per-row table in full (default: more than 16 rows are summarized as
                    min/median/max and the 5 least busy)
  --sms             the per-SM table and the CTAs-running steps in full (default: more than 16
                    are summarized: min/median/max and the 5 SMs finishing last)
  --json OUT        the same numbers as one JSON object (OUT '-' for stdout), every row and SM
  --clock-ghz F     use F GHz for every row instead of the measured SM clock rates
Exit status: 0 done, 1 the output could not be written, 2 bad usage or unreadable/corrupt input.
)";

const std::set<std::string> kAnalyses = {"handoff",   "busy",     "tail",
                                         "histogram", "outliers", "loops"};

struct AnalyzeArgs {
  std::string input;
  std::optional<uint64_t> launch;
  std::optional<uint32_t> cta;
  std::set<std::string> only;
  size_t top = 10;
  uint32_t bins = 20;
  std::optional<std::string> name;
  std::optional<std::pair<double, double>> window;
  std::optional<std::string> json;
  std::optional<double> ghz;
  bool rows = false, sms = false;
};

std::set<std::string> analyses_value(const std::string &v) {
  std::set<std::string> out;
  size_t from = 0;
  while (true) {
    const size_t comma = v.find(',', from);
    const std::string item = v.substr(from, comma == std::string::npos ? comma : comma - from);
    if (!kAnalyses.count(item))
      usage_error("--only wants a comma-separated list of handoff, busy, tail, histogram, "
                  "outliers, loops, got '" +
                  v + "'");
    out.insert(item);
    if (comma == std::string::npos)
      return out;
    from = comma + 1;
  }
}

double number_in(const std::string &text, const std::string &whole) {
  char *end = nullptr;
  const double f = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(f))
    usage_error("--window wants BEGIN:END, two numbers with BEGIN <= END, got '" + whole + "'");
  return f;
}

std::pair<double, double> window_value(const std::string &v) {
  const size_t colon = v.find(':');
  if (colon == std::string::npos)
    usage_error("--window wants BEGIN:END, two numbers with BEGIN <= END, got '" + v + "'");
  const double b = number_in(v.substr(0, colon), v), e = number_in(v.substr(colon + 1), v);
  if (b > e)
    usage_error("--window wants BEGIN:END, two numbers with BEGIN <= END, got '" + v + "'");
  return {b, e};
}

AnalyzeArgs parse_analyze_args(int argc, char **argv) {
  AnalyzeArgs a;
  std::vector<std::string> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kAnalyzeUsage, stdout);
      std::exit(0);
    }
    if (auto v = option_value(argc, argv, i, "--launch")) {
      a.launch = count_value(*v, UINT64_MAX, "--launch wants a launch sequence number");
    } else if (auto v = option_value(argc, argv, i, "--cta")) {
      a.cta = uint32_t(count_value(*v, UINT32_MAX, "--cta wants a CTA index"));
    } else if (auto v = option_value(argc, argv, i, "--only")) {
      a.only = analyses_value(*v);
    } else if (auto v = option_value(argc, argv, i, "--top")) {
      a.top = count_value(*v, SIZE_MAX, "--top wants a count of slices (0: all)");
      if (a.top == 0)
        a.top = SIZE_MAX;
    } else if (arg == "--rows") {
      a.rows = true;
    } else if (arg == "--sms") {
      a.sms = true;
    } else if (auto v = option_value(argc, argv, i, "--bins")) {
      a.bins = uint32_t(count_value(*v, 10000, "--bins wants a count from 1 to 10000"));
      if (a.bins == 0)
        usage_error("--bins wants a count from 1 to 10000, got '" + *v + "'");
    } else if (auto v = option_value(argc, argv, i, "--name")) {
      a.name = *v;
    } else if (auto v = option_value(argc, argv, i, "--window")) {
      a.window = window_value(*v);
    } else if (auto v = option_value(argc, argv, i, "--json")) {
      a.json = *v;
    } else if (auto v = option_value(argc, argv, i, "--clock-ghz")) {
      a.ghz = ghz_value(*v);
    } else if (arg.size() > 1 && arg[0] == '-') {
      usage_error("analyze: unknown option '" + arg + "'");
    } else {
      inputs.push_back(arg);
    }
  }
  if (inputs.empty())
    usage_error("analyze: no input file");
  if (inputs.size() > 1)
    usage_error("analyze reads one input, got " + std::to_string(inputs.size()) +
                " (trace-view diff compares two)");
  a.input = inputs.front();
  if (a.only.empty() && !a.window) {
    a.only = kAnalyses;
    a.only.erase("loops"); // asked for by name (docs/analysis.md)
  }
  if (a.json)
    check_outputs({a.input}, {{"--json", *a.json}});
  return a;
}

} // namespace

int analyze_command(int argc, char **argv) {
  const AnalyzeArgs args = parse_analyze_args(argc, argv);
  cutrace::DecodeOptions options;
  options.ghz_override = args.ghz;
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
  if (wanted("loops"))
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
