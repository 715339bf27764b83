// trace-view: reads `.ctrace` runs and writes the HTML timeline, a Perfetto trace (its native
// protobuf format, or Chrome Trace Event JSON), a summary table or its JSON (docs/viewer.md).
// Exit codes and wiring only: the command line is parsed in command_line.cpp, the work is in
// cutrace_analysis; `analyze`, `diff` and `list` are in files of their own. Each input is decoded
// once; every output reads that model. A run of one launch, or the launch chosen with
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
#include "command_line.h"
#include "diff.h"
#include "inputs.h"
#include "list.h"
#include "merge_torch.h"
#include "outputs.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
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

// Reads a launch's records again from its file, for the exporters that write launch by launch.
std::function<std::optional<cutrace::RunLaunch>(const cutrace::RunLaunch &)>
detail_loader(const ViewArgs &args, const cutrace::RunTrace &run) {
  cutrace::DecodeOptions decode;
  decode.ghz_override = args.ghz;
  decode.run_marker_cost = !args.raw_times;
  return
      [&run, decode](const cutrace::RunLaunch &l) { return cutrace::with_detail(run, l, decode); };
}

// The database is written (and renamed into place) by SQLite, before the other outputs commit.
bool write_sqlite_output(const ViewArgs &args, const cutrace::RunTrace &run) {
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
int commit_outputs(const ViewArgs &args, Outputs &out, bool sqlite_ok) {
  if (!sqlite_ok || out.failed())
    return 1;
  std::vector<std::string> also;
  if (args.sqlite)
    also.push_back(*args.sqlite);
  return out.commit(also) ? 0 : 1;
}

// How much of a run's records the whole-run outputs need in memory: none for the summaries
// (launch extents suffice), the page's size bound for the HTML, everything for Perfetto's JSON.
// --perfetto and --sqlite read each launch's records again when they write it
// (cutrace::with_detail), and --launch reads the chosen launch's alone (decode_one_launch). A
// run of any length is then summarized and exported in bounded memory (docs/viewer.md).
cutrace::RunReadOptions records_needed(const ViewArgs &args) {
  cutrace::RunReadOptions read;
  if (args.perfetto_json && !args.launch)
    return read;
  read.max_buffer_bytes = args.html && !args.launch ? args.html_max_mb << 20 : 0;
  return read;
}

// The outputs of one launch, as for a version 1 file.
int write_launch_outputs(const ViewArgs &args, const std::string &path, cutrace::RunTrace run) {
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

int write_run_outputs(const ViewArgs &args, const cutrace::RunTrace &run) {
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

int view_command(const ViewArgs &args) {
  cutrace::DecodeOptions options;
  options.ghz_override = args.ghz;
  options.run_marker_cost = !args.raw_times;

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
    const trace_view::CommandLine line = trace_view::parse_command_line(argc, argv);
    switch (line.command) {
    case trace_view::Command::analyze:
      return trace_view::analyze_command(line.analyze);
    case trace_view::Command::diff:
      return trace_view::diff_command(line.diff);
    case trace_view::Command::list:
      return trace_view::list_command(line.list);
    case trace_view::Command::merge_torch:
      return trace_view::merge_torch_command(line.merge_torch);
    case trace_view::Command::view:
      break;
    }
    return view_command(line.view);
  } catch (const std::exception &e) { // out of memory on a huge trace, say: a message, not abort
    std::fprintf(stderr, "trace-view: error: %s\n", e.what());
    return 2;
  }
}
