// trace-view's command line (docs/cli.md, "trace-view"): the options of each command, parsed with
// CLI11 into one struct per command. Parsing checks what needs no input read: option values,
// counts of inputs, outputs that would replace an input (outputs.h). --help and --version print
// and exit 0; bad usage prints "trace-view: error: WHY (see --help)" and exits 2.
#ifndef CUTRACE_TRACE_VIEW_COMMAND_LINE_H
#define CUTRACE_TRACE_VIEW_COMMAND_LINE_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace trace_view {

// `trace-view FILE.ctrace... [--html OUT] ...`: the exports of a run or of one launch.
struct ViewArgs {
  std::vector<std::string> inputs;
  std::optional<std::string> html, perfetto, perfetto_json, json, sqlite;
  bool summary = false; // also set when no output is named
  std::optional<uint64_t> launch;
  std::optional<uint32_t> cta;
  std::optional<double> ghz;
  bool raw_times = false; // keep the markers' own cost in the times (--raw-times)
  uint64_t html_max_mb = 100;
};

// `trace-view analyze FILE.ctrace ...` (docs/analysis.md).
struct AnalyzeArgs {
  std::string input;
  std::optional<uint64_t> launch;
  std::optional<uint32_t> cta;
  std::set<std::string> only; // the analyses asked for (default: all but loops)
  bool only_default = false;  // no --only: loops too when the trace is one of --auto
  size_t top = 10;            // SIZE_MAX: all
  uint32_t bins = 20;
  std::optional<std::string> name;
  std::optional<std::pair<double, double>> window;
  std::optional<std::string> json;
  std::optional<double> ghz;
  bool raw_times = false;
  bool rows = false, sms = false;
};

// `trace-view diff A.ctrace B.ctrace ...` (docs/analysis.md, "Comparing two traces").
struct DiffArgs {
  std::string a, b;
  std::optional<uint64_t> launch_a, launch_b;
  std::optional<std::string> kernel, json;
  std::vector<std::pair<std::string, std::string>> noise_from;
  std::optional<double> factor;    // default: cutrace::NoiseModel's
  std::optional<double> threshold; // a fraction (the option says percent)
  size_t top = 20;
  bool force = false;
  std::optional<double> ghz;
  bool raw_times = false;
};

// `trace-view list FILE.ctrace...` (docs/viewer.md, "Listing a run's launches").
struct ListArgs {
  std::vector<std::string> inputs;
};

// `trace-view merge-torch PROFILER.json RUN.ctrace -o OUT.pftrace` (docs/torch.md).
struct MergeTorchArgs {
  std::string profiler, run, output;
  double tolerance_us = 20;
};

enum class Command { view, analyze, diff, list, merge_torch };

struct CommandLine {
  Command command = Command::view;
  ViewArgs view;
  AnalyzeArgs analyze;
  DiffArgs diff;
  ListArgs list;
  MergeTorchArgs merge_torch;
};

// The command and its arguments; exits 0 after --help or --version, 2 on bad usage.
CommandLine parse_command_line(int argc, char **argv);

} // namespace trace_view

#endif
