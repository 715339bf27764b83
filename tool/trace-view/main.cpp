// trace-view: reads `.ctrace` runs and writes the HTML timeline, a Perfetto trace (its native
// protobuf format, or Chrome Trace Event JSON), a summary table or its JSON (docs/viewer.md).
// Argument parsing, exit codes and wiring only; the work is in cutrace_analysis. Each input is
// decoded once; every output reads that model. A run of one launch, or the launch chosen with
// --launch, gets the launch outputs; otherwise the outputs show the whole run, several inputs
// merged onto one axis (one process each).
//
// Exit status: 0 done; 1 an output could not be written; 2 bad usage, or an input that cannot be
// read or decoded at all (a --launch or --cta the input does not have included). Decode problems
// in a readable file are warnings (the exports show them).
#include <cutrace/completeness.h>
#include <cutrace/ctrace.h>
#include <cutrace/export.h>
#include <cutrace/run_trace.h>
#include <cutrace/sqlite.h>

#include "analyze.h"
#include "diff.h"
#include "inputs.h"
#include "list.h"
#include "outputs.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#ifndef CUTRACE_VERSION
#define CUTRACE_VERSION "unknown"
#endif

namespace {

using namespace trace_view;

const char *kUsage =
    R"(usage: trace-view FILE.ctrace... [--html OUT] [--perfetto OUT.pftrace] [--json OUT]
                  [--summary] [--sqlite OUT.db] [--perfetto-json OUT] [--launch N] [--cta N]
                  [--clock-ghz F] [--html-max-mb N]

Reads one or more runs (.ctrace: the launches a program recorded, with their decode maps) and
writes:
  --html OUT        self-contained HTML timeline (no network): a run opens at its overview
  --perfetto OUT    Perfetto's native trace (protobuf): open in https://ui.perfetto.dev; written
                    launch by launch, in memory bounded whatever the run's size
  --perfetto-json OUT  the same as Chrome Trace Event JSON, for chrome://tracing; the whole
                    output is built in memory (about 100 bytes per event)
  --json OUT        the summary's numbers as JSON (of one launch: the decoded launch)
  --summary         per kernel, stream and GPU statistics of a run; per event name, group and SM
                    of one launch; printed to stdout (the default when no output is named)
  --sqlite OUT.db   SQLite database: launches, rows, events, flows (docs/analysis.md); a file,
                    never '-'
Several files (processes or ranks of one job) are merged into one timeline, one process each.
  --launch N        only the launch with sequence number N (0 = the first recorded): every
                    output is then that launch's, as for a file holding one launch
  --cta N           with one launch: only CTA N (linear index: x + y*gridDim.x +
                    z*gridDim.x*gridDim.y); the HTML opens on it
  --clock-ghz F     use F GHz for every row instead of the measured SM clock rates
  --html-max-mb N   size bound of a run's HTML (default 100): past it the page keeps the
                    overview and the detail of the launches that fit, and says what it left out
  --help, --version
Subcommands (each has its own --help; docs/analysis.md):
  trace-view analyze FILE [--launch N] ...   hand-offs, busy/idle, tail and waves, histograms,
                                             slowest slices, statistics of a time window
  trace-view diff A B [--launch-a N] ...     per name and TRACE_DAG pair: what changed between
                                             two traces of one kernel, run-to-run noise marked
  trace-view list FILE...                    every launch: sequence number, kernel, grid,
                                             stream, start, duration, completeness
OUT may be '-' for stdout. Outputs are written all or none (temporary files, renamed into place);
an output may not be an input nor be named twice; FIFOs and devices are written to, not replaced.
Exit status: 0 done, 1 an output could not be written, 2 bad usage or unreadable/corrupt input.
)";

struct Args {
  std::vector<std::string> inputs;
  std::optional<std::string> html, perfetto, perfetto_json, json, sqlite;
  bool summary = false;
  std::optional<uint64_t> launch;
  std::optional<uint32_t> cta;
  std::optional<double> ghz;
  uint64_t html_max_mb = 100;
};

// Before any input is read: no output is an input or named twice (docs/cli.md, "Outputs"); a
// database is a file SQLite writes and renames into place, not stdout.
void check_outputs(const Args &a) {
  if (a.sqlite && (*a.sqlite == "-" || a.sqlite->empty()))
    usage_error("--sqlite wants a file name ('-' is not allowed: a database cannot go to stdout)");
  std::vector<NamedOutput> outputs;
  for (auto [option, path] : {std::pair{"--html", &a.html}, std::pair{"--perfetto", &a.perfetto},
                              std::pair{"--perfetto-json", &a.perfetto_json},
                              std::pair{"--json", &a.json}, std::pair{"--sqlite", &a.sqlite}})
    if (*path)
      outputs.push_back({option, **path});
  trace_view::check_outputs(a.inputs, outputs);
}

// Reads a launch's records again from its file, for the exporters that write launch by launch.
std::function<std::optional<cutrace::RunLaunch>(const cutrace::RunLaunch &)>
detail_loader(const Args &args, const cutrace::RunTrace &run) {
  cutrace::DecodeOptions decode;
  decode.ghz_override = args.ghz;
  return
      [&run, decode](const cutrace::RunLaunch &l) { return cutrace::with_detail(run, l, decode); };
}

// The database is written (and renamed into place) by SQLite, before the other outputs commit.
bool write_sqlite_output(const Args &args, const cutrace::RunTrace &run) {
  cutrace::SqliteOptions options;
  options.tool_version = CUTRACE_VERSION;
  options.input_files = args.inputs;
  options.load_detail = detail_loader(args, run);
  if (std::optional<std::string> err = cutrace::write_sqlite(*args.sqlite, run, options)) {
    std::fprintf(stderr, "trace-view: error: %s\n", err->c_str());
    return false;
  }
  return true;
}

// Every output of the command or none: the database, when it was written, is said with them.
int commit_outputs(const Args &args, Outputs &out, bool sqlite_ok) {
  if (!sqlite_ok || out.failed())
    return 1;
  std::vector<std::string> also;
  if (args.sqlite)
    also.push_back(*args.sqlite);
  return out.commit(also) ? 0 : 1;
}

Args parse_args(int argc, char **argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (arg == "--version") {
      std::printf("trace-view %s (trace format %u, run container %u)\n", CUTRACE_VERSION,
                  cutrace::kFormatVersion, cutrace::kRunContainerVersion);
      std::exit(0);
    }
    if (arg == "--summary") {
      a.summary = true;
    } else if (auto v = option_value(argc, argv, i, "--html")) {
      a.html = *v;
    } else if (auto v = option_value(argc, argv, i, "--perfetto-json")) {
      a.perfetto_json = *v;
    } else if (auto v = option_value(argc, argv, i, "--perfetto")) {
      a.perfetto = *v;
    } else if (auto v = option_value(argc, argv, i, "--json")) {
      a.json = *v;
    } else if (auto v = option_value(argc, argv, i, "--sqlite")) {
      a.sqlite = *v;
    } else if (auto v = option_value(argc, argv, i, "--launch")) {
      a.launch = count_value(*v, UINT64_MAX, "--launch wants a launch sequence number");
    } else if (auto v = option_value(argc, argv, i, "--cta")) {
      a.cta = uint32_t(count_value(*v, UINT32_MAX, "--cta wants a CTA index"));
    } else if (auto v = option_value(argc, argv, i, "--html-max-mb")) {
      a.html_max_mb = count_value(*v, 1u << 20, "--html-max-mb wants a size in MB (1 or more)");
      if (a.html_max_mb == 0)
        usage_error("--html-max-mb wants a size in MB (1 or more), got '" + *v + "'");
    } else if (auto v = option_value(argc, argv, i, "--clock-ghz")) {
      a.ghz = ghz_value(*v);
    } else if (arg.size() > 1 && arg[0] == '-') {
      usage_error("unknown option '" + arg + "'");
    } else {
      a.inputs.push_back(arg);
    }
  }
  if (a.inputs.empty())
    usage_error("no input file");
  if ((a.launch || a.cta) && a.inputs.size() > 1)
    usage_error(std::string(a.launch ? "--launch" : "--cta") + " selects from one input, got " +
                std::to_string(a.inputs.size()) + " inputs");
  if (!a.html && !a.perfetto && !a.perfetto_json && !a.json && !a.sqlite)
    a.summary = true;
  int to_stdout = 0;
  for (const std::optional<std::string> *out : {&a.html, &a.perfetto, &a.perfetto_json, &a.json})
    to_stdout += *out && **out == "-";
  if (to_stdout > 1)
    usage_error("only one of --html, --perfetto, --perfetto-json and --json can go to stdout");
  check_outputs(a);
  return a;
}

// How much of a run's records the whole-run outputs need in memory: none for the summaries
// (launch extents suffice), the page's size bound for the HTML, everything for Perfetto's JSON.
// --perfetto and --sqlite read each launch's records again when they write it
// (cutrace::with_detail), and --launch reads the chosen launch's alone (decode_one_launch). A
// run of any length is then summarized and exported in bounded memory (docs/viewer.md).
cutrace::RunReadOptions records_needed(const Args &args) {
  cutrace::RunReadOptions read;
  if (args.perfetto_json && !args.launch)
    return read;
  read.max_buffer_bytes = args.html && !args.launch ? args.html_max_mb << 20 : 0;
  return read;
}

// The outputs of one launch, as for a version 1 file.
int write_launch_outputs(const Args &args, const std::string &path, cutrace::RunTrace run) {
  cutrace::RunLaunch &launch = run.launches.front();
  const cutrace::DecodeMap &map = run.maps[launch.map];
  cutrace::Trace trace = std::move(launch.trace);
  if (trace.rows.empty() && !trace.ok())
    input_error(path + ": " + trace.problems.front());
  if (!trace.ok())
    std::fprintf(stderr, "trace-view: warning: %s: %zu decode problems, first: %s\n", path.c_str(),
                 trace.problems.size(), trace.problems.front().c_str());
  if (args.cta) {
    if (*args.cta >= trace.header.num_ctas())
      input_error(path + ": no CTA " + std::to_string(*args.cta) + " (the grid has " +
                  std::to_string(trace.header.num_ctas()) + ")");
    trace = cutrace::restrict_to_cta(trace, *args.cta);
  }
  Outputs out;
  if (args.html) {
    cutrace::HtmlOptions html;
    html.initial_cta = args.cta;
    out.add(*args.html, cutrace::export_html(map, trace, html));
  }
  if (args.perfetto)
    out.add_streamed(*args.perfetto, [&](const cutrace::ByteSink &sink) {
      return cutrace::write_perfetto_trace(map, trace, sink)
                 ? std::nullopt
                 : std::optional<std::string>("the trace could not be written");
    });
  if (args.perfetto_json)
    out.add(*args.perfetto_json, cutrace::export_perfetto(map, trace));
  if (args.json)
    out.add(*args.json, cutrace::trace_summary_json(map, trace));
  if (args.summary)
    out.add("-", cutrace::format_summary(cutrace::summarize(map, trace)));
  bool sqlite_ok = true;
  if (args.sqlite && !out.failed()) { // the database reads the run: lend it the (maybe one-CTA)
    launch.trace = std::move(trace);  // trace
    sqlite_ok = write_sqlite_output(args, run);
  }
  return commit_outputs(args, out, sqlite_ok);
}

// Every launch of `run`, with a progress line every tenth (at least 100 launches apart).
cutrace::RunTrace decode_whole_run(const cutrace::Run &run, const std::string &path,
                                   const cutrace::DecodeOptions &options) {
  const size_t total = run.launches.size();
  const size_t step = std::max<size_t>(100, total / 10);
  cutrace::RunProgress progress;
  if (total > 100)
    progress = [&](size_t decoded, size_t of) {
      if (decoded % step == 0 || decoded == of)
        std::fprintf(stderr, "trace-view: %s: decoded %zu/%zu launches\n", path.c_str(), decoded,
                     of);
    };
  cutrace::Expected<cutrace::RunTrace> decoded = cutrace::decode_run(run, path, options, progress);
  if (!decoded)
    input_error(path + ": " + decoded.error);
  return std::move(*decoded);
}

void warn_about(const cutrace::RunTrace &run) {
  if (run.launches.empty() && run.lost.empty())
    std::fprintf(stderr, "trace-view: warning: no launch to show\n");
  if (!run.problems.empty())
    std::fprintf(stderr, "trace-view: warning: %zu problems, first: %s\n", run.problems.size(),
                 run.problems.front().c_str());
  // Each launch without figures by name, and why (the outputs say it too).
  const cutrace::RunCompleteness gaps = cutrace::run_completeness(run);
  for (const cutrace::UndecodedLaunch &u : gaps.undecoded)
    std::fprintf(stderr, "trace-view: warning: %s not decoded: %s\n",
                 cutrace::undecoded_name(u).c_str(), u.why.c_str());
  size_t with_problems = 0;
  const cutrace::RunLaunch *first = nullptr;
  for (const cutrace::RunLaunch &l : run.launches)
    if (!l.trace.ok()) {
      ++with_problems;
      if (!first || l.sequence < first->sequence)
        first = &l;
    }
  if (first)
    std::fprintf(stderr,
                 "trace-view: warning: %zu of %zu launches have decode problems, first: launch "
                 "%llu (%s): %s\n",
                 with_problems, run.launches.size(),
                 static_cast<unsigned long long>(first->sequence), first->trace.kernel.c_str(),
                 first->trace.problems.front().c_str());
}

// The same file named twice (or one process's run under two names) would be merged as two
// processes: said before anything is read twice as two.
void warn_about_repeats(const std::vector<std::string> &inputs,
                        const std::vector<cutrace::RunTrace> &runs) {
  for (size_t i = 0; i < inputs.size(); ++i)
    for (size_t j = i + 1; j < inputs.size(); ++j) {
      std::error_code ec;
      const bool same_file = std::filesystem::equivalent(inputs[i], inputs[j], ec);
      const cutrace::RunProcess &a = runs[i].processes.front(), &b = runs[j].processes.front();
      const bool same_process = !same_file && a.pid != 0 && a.pid == b.pid && a.host == b.host &&
                                a.program == b.program && runs[i].origin_ns == runs[j].origin_ns;
      if (same_file || same_process)
        std::fprintf(stderr,
                     "trace-view: warning: %s and %s are %s: the outputs show it twice, as two "
                     "processes\n",
                     inputs[i].c_str(), inputs[j].c_str(),
                     same_file ? "the same file" : "the same run (same program, pid, host, start)");
    }
}

int write_run_outputs(const Args &args, const cutrace::RunTrace &run) {
  Outputs out;
  if (args.html) {
    cutrace::RunHtmlOptions html;
    html.max_bytes = args.html_max_mb << 20;
    out.add(*args.html, cutrace::export_run_html(run, html));
  }
  if (args.perfetto) {
    cutrace::RunPerfettoOptions perfetto;
    perfetto.load_detail = detail_loader(args, run);
    out.add_streamed(*args.perfetto, [&](const cutrace::ByteSink &sink) {
      return cutrace::write_run_perfetto_trace(run, sink, perfetto);
    });
  }
  if (args.perfetto_json)
    out.add(*args.perfetto_json, cutrace::export_run_perfetto(run));
  if (args.json)
    out.add(*args.json, cutrace::run_summary_json(run));
  if (args.summary)
    out.add("-", cutrace::run_summary(run));
  const bool sqlite_ok = !args.sqlite || out.failed() || write_sqlite_output(args, run);
  return commit_outputs(args, out, sqlite_ok);
}

int run(int argc, char **argv) {
  const Args args = parse_args(argc, argv);
  cutrace::DecodeOptions options;
  options.ghz_override = args.ghz;

  std::vector<cutrace::RunTrace> runs;
  for (const std::string &path : args.inputs) {
    cutrace::Run raw = read_input(path, records_needed(args));
    if (raw.launches.size() == 1 && raw.launches.front().buffer_dropped)
      raw = read_input(path); // one launch: its own outputs, which need its records
    if (args.launch || (args.inputs.size() == 1 && raw.launches.size() == 1))
      return write_launch_outputs(args, path,
                                  decode_one_launch(std::move(raw), path, args.launch, options));
    if (args.cta)
      usage_error("--cta shows one launch: choose it with --launch N (" + path + " holds " +
                  launches_held(raw) + ")");
    runs.push_back(decode_whole_run(raw, path, options));
  }
  if (runs.size() > 1)
    warn_about_repeats(args.inputs, runs);
  cutrace::RunTrace run =
      runs.size() == 1 ? std::move(runs.front()) : cutrace::merge_runs(std::move(runs));
  warn_about(run);
  return write_run_outputs(args, run);
}

} // namespace

int main(int argc, char **argv) {
  try {
    if (argc > 1 && std::strcmp(argv[1], "analyze") == 0)
      return trace_view::analyze_command(argc - 1, argv + 1);
    if (argc > 1 && std::strcmp(argv[1], "diff") == 0)
      return trace_view::diff_command(argc - 1, argv + 1);
    if (argc > 1 && std::strcmp(argv[1], "list") == 0)
      return trace_view::list_command(argc - 1, argv + 1);
    return run(argc, argv);
  } catch (const std::exception &e) { // out of memory on a huge trace, say: a message, not abort
    std::fprintf(stderr, "trace-view: error: %s\n", e.what());
    return 2;
  }
}
