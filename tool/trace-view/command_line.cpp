// trace-view's command line with CLI11 (command_line.h): one CLI::App per command, the value of
// each option checked as it is read (inputs.h: counts, rates), CLI11's own errors said in the
// words and status every trace-view error has.
#include "command_line.h"

#include "inputs.h"
#include "outputs.h"
#include "usage.h"

#include <cutrace/ctrace.h>

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#ifndef CUTRACE_VERSION
#define CUTRACE_VERSION "unknown"
#endif

namespace trace_view {

namespace {

// --help prints the command's text of usage.h, written for the reader, rather than one
// generated from the options.
class WrittenHelp : public CLI::FormatterBase {
public:
  explicit WrittenHelp(const char *text) : text_(text) {}
  std::string make_help(const CLI::App *, std::string, CLI::AppFormatMode) const override {
    return text_;
  }

private:
  const char *text_;
};

void use_help(CLI::App &app, const char *text) {
  app.formatter(std::make_shared<WrittenHelp>(text));
  app.set_help_flag("-h,--help");
}

// An option whose value `parse` checks and stores (a bad value is a usage error, exit 2).
template <typename Parse> void add_value(CLI::App &app, const std::string &name, Parse parse) {
  app.add_option_function<std::string>(name, parse);
}

// --- trace-view FILE.ctrace... -----------------------------------------------------------------

void add_view_options(CLI::App &app, ViewArgs &a) {
  use_help(app, kViewUsage);
  app.add_option("FILE", a.inputs);
  app.add_flag("--summary", a.summary);
  app.add_option("--html", a.html);
  app.add_option("--perfetto", a.perfetto);
  app.add_option("--perfetto-json", a.perfetto_json);
  app.add_option("--json", a.json);
  app.add_option("--sqlite", a.sqlite);
  add_value(app, "--launch", [&a](const std::string &v) {
    a.launch = count_value(v, UINT64_MAX, "--launch wants a launch sequence number");
  });
  add_value(app, "--cta", [&a](const std::string &v) {
    a.cta = uint32_t(count_value(v, UINT32_MAX, "--cta wants a CTA index"));
  });
  add_value(app, "--html-max-mb", [&a](const std::string &v) {
    a.html_max_mb = count_value(v, 1u << 20, "--html-max-mb wants a size in MB (1 or more)");
    if (a.html_max_mb == 0)
      usage_error("--html-max-mb wants a size in MB (1 or more), got '" + v + "'");
  });
  add_value(app, "--clock-ghz", [&a](const std::string &v) { a.ghz = ghz_value(v); });
  app.add_flag("--raw-times", a.raw_times);
  app.add_flag_callback("--version", [] {
    std::printf("trace-view %s (trace format %u, run container %u)\n", CUTRACE_VERSION,
                cutrace::kFormatVersion, cutrace::kRunContainerVersion);
    std::exit(0);
  });
}

// Before any input is read: no output is an input or named twice (docs/cli.md, "Outputs"); a
// database is a file SQLite writes and renames into place, not stdout.
void check_view_args(ViewArgs &a) {
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
  if (a.sqlite && (*a.sqlite == "-" || a.sqlite->empty()))
    usage_error("--sqlite wants a file name ('-' is not allowed: a database cannot go to stdout)");
  std::vector<NamedOutput> outputs;
  for (auto [option, path] : {std::pair{"--html", &a.html}, std::pair{"--perfetto", &a.perfetto},
                              std::pair{"--perfetto-json", &a.perfetto_json},
                              std::pair{"--json", &a.json}, std::pair{"--sqlite", &a.sqlite}})
    if (*path)
      outputs.push_back({option, **path});
  check_outputs(a.inputs, outputs);
}

// --- trace-view analyze --------------------------------------------------------------------------

const std::set<std::string> kAnalyses = {"handoff",   "busy",     "tail",
                                         "histogram", "outliers", "loops"};

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

[[noreturn]] void bad_window(const std::string &v) {
  usage_error("--window wants BEGIN:END, two numbers with BEGIN <= END, got '" + v + "'");
}

double number_in(const std::string &text, const std::string &whole) {
  char *end = nullptr;
  const double f = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(f))
    bad_window(whole);
  return f;
}

std::pair<double, double> window_value(const std::string &v) {
  const size_t colon = v.find(':');
  if (colon == std::string::npos)
    bad_window(v);
  const double b = number_in(v.substr(0, colon), v), e = number_in(v.substr(colon + 1), v);
  if (b > e)
    bad_window(v);
  return {b, e};
}

CLI::App *add_analyze_command(CLI::App &app, AnalyzeArgs &a, std::vector<std::string> &inputs) {
  CLI::App *sub = app.add_subcommand("analyze");
  use_help(*sub, kAnalyzeUsage);
  sub->add_option("FILE", inputs);
  add_value(*sub, "--launch", [&a](const std::string &v) {
    a.launch = count_value(v, UINT64_MAX, "--launch wants a launch sequence number");
  });
  add_value(*sub, "--cta", [&a](const std::string &v) {
    a.cta = uint32_t(count_value(v, UINT32_MAX, "--cta wants a CTA index"));
  });
  add_value(*sub, "--only", [&a](const std::string &v) { a.only = analyses_value(v); });
  add_value(*sub, "--top", [&a](const std::string &v) {
    a.top = count_value(v, SIZE_MAX, "--top wants a count of slices (0: all)");
    if (a.top == 0)
      a.top = SIZE_MAX;
  });
  sub->add_flag("--rows", a.rows);
  sub->add_flag("--sms", a.sms);
  add_value(*sub, "--bins", [&a](const std::string &v) {
    a.bins = uint32_t(count_value(v, 10000, "--bins wants a count from 1 to 10000"));
    if (a.bins == 0)
      usage_error("--bins wants a count from 1 to 10000, got '" + v + "'");
  });
  sub->add_option("--name", a.name);
  add_value(*sub, "--window", [&a](const std::string &v) { a.window = window_value(v); });
  sub->add_option("--json", a.json);
  add_value(*sub, "--clock-ghz", [&a](const std::string &v) { a.ghz = ghz_value(v); });
  sub->add_flag("--raw-times", a.raw_times);
  return sub;
}

void check_analyze_args(AnalyzeArgs &a, const std::vector<std::string> &inputs) {
  if (inputs.empty())
    usage_error("analyze: no input file");
  if (inputs.size() > 1)
    usage_error("analyze reads one input, got " + std::to_string(inputs.size()) +
                " (trace-view diff compares two)");
  a.input = inputs.front();
  if (a.only.empty() && !a.window) {
    a.only = kAnalyses;
    a.only.erase("loops"); // asked for by name, or a trace of --auto (docs/analysis.md)
    a.only_default = true;
  }
  if (a.json)
    check_outputs({a.input}, {{"--json", *a.json}});
}

// --- trace-view diff -----------------------------------------------------------------------------

double positive_value(const std::string &v, const std::string &what) {
  char *end = nullptr;
  const double f = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !std::isfinite(f) || f < 0)
    usage_error(what + ", got '" + v + "'");
  return f;
}

const char *const kNoiseFromNeedsTwo =
    "--noise-from needs two files (two traces of one unchanged build)";

CLI::App *add_diff_command(CLI::App &app, DiffArgs &a, std::vector<std::string> &inputs) {
  CLI::App *sub = app.add_subcommand("diff");
  use_help(*sub, kDiffUsage);
  sub->add_option("FILE", inputs);
  sub->add_flag("--force", a.force);
  // Two files per --noise-from, the option repeated for more pairs.
  sub->add_option("--noise-from", a.noise_from)
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  add_value(*sub, "--launch-a", [&a](const std::string &v) {
    a.launch_a = count_value(v, UINT64_MAX, "--launch-a wants a launch sequence number");
  });
  add_value(*sub, "--launch-b", [&a](const std::string &v) {
    a.launch_b = count_value(v, UINT64_MAX, "--launch-b wants a launch sequence number");
  });
  sub->add_option("--kernel", a.kernel);
  sub->add_option("--json", a.json);
  add_value(*sub, "--top", [&a](const std::string &v) {
    a.top = count_value(v, 1u << 30, "--top wants a number of rows");
  });
  add_value(*sub, "--noise-factor", [&a](const std::string &v) {
    a.factor = positive_value(v, "--noise-factor wants a factor (0 or more)");
  });
  add_value(*sub, "--noise-threshold", [&a](const std::string &v) {
    a.threshold = positive_value(v, "--noise-threshold wants a percentage (0 or more)") / 100;
  });
  add_value(*sub, "--clock-ghz", [&a](const std::string &v) { a.ghz = ghz_value(v); });
  sub->add_flag("--raw-times", a.raw_times);
  return sub;
}

void check_diff_args(DiffArgs &a, const std::vector<std::string> &inputs) {
  for (const auto &[c, d] : a.noise_from)
    if (c.empty() || d.empty() || c[0] == '-' || d[0] == '-')
      usage_error(kNoiseFromNeedsTwo);
  if (inputs.size() != 2)
    usage_error("diff compares two files, got " + std::to_string(inputs.size()));
  a.a = inputs[0];
  a.b = inputs[1];
  if (a.json) {
    std::vector<std::string> read = {a.a, a.b};
    for (const auto &[c, d] : a.noise_from)
      read.insert(read.end(), {c, d});
    check_outputs(read, {{"--json", *a.json}});
  }
}

// --- trace-view list -----------------------------------------------------------------------------

CLI::App *add_list_command(CLI::App &app, ListArgs &a) {
  CLI::App *sub = app.add_subcommand("list");
  use_help(*sub, kListUsage);
  sub->add_option("FILE", a.inputs);
  return sub;
}

// --- trace-view merge-torch ---------------------------------------------------------------------

CLI::App *add_merge_torch_command(CLI::App &app, MergeTorchArgs &a,
                                  std::vector<std::string> &inputs) {
  CLI::App *sub = app.add_subcommand("merge-torch");
  use_help(*sub, kMergeTorchUsage);
  sub->add_option("FILE", inputs);
  sub->add_option("-o", a.output);
  add_value(*sub, "--tolerance-us", [&a](const std::string &v) {
    a.tolerance_us = positive_value(v, "--tolerance-us wants a time in microseconds (0 or more)");
  });
  return sub;
}

void check_merge_torch_args(MergeTorchArgs &a, const std::vector<std::string> &inputs) {
  if (inputs.size() != 2)
    usage_error("merge-torch reads a profiler trace and a run file, got " +
                std::to_string(inputs.size()) + " inputs");
  if (a.output.empty())
    usage_error("merge-torch: no output (-o OUT.pftrace)");
  a.profiler = inputs[0];
  a.run = inputs[1];
  check_outputs({a.profiler, a.run}, {{"-o", a.output}});
}

// --- CLI11's errors --------------------------------------------------------------------------

// CLI11 names the option first in its messages ("--json: 1 required TEXT missing").
std::string option_named(const std::string &message) {
  const size_t colon = message.find(": ");
  return colon == std::string::npos ? std::string() : message.substr(0, colon);
}

// CLI11's error said as trace-view says it: which argument, and what is wrong with it. `command`
// is "analyze: " (the subcommand's name), or empty. CLI11's own wording is read here; the messages
// are pinned by test/cli/check_trace_view.sh, so a CLI11 that words them otherwise is caught.
std::string said(const CLI::ParseError &e, const CLI::App &app, const std::string &command) {
  const std::string message = e.what();
  if (dynamic_cast<const CLI::ExtrasError *>(&e)) {
    std::vector<std::string> extra = app.remaining();
    for (const CLI::App *sub : app.get_subcommands())
      if (extra.empty())
        extra = sub->remaining();
    if (!extra.empty()) {
      const std::string &word = extra.front();
      const bool option = word.size() > 1 && word[0] == '-';
      return command + (option ? "unknown option '" : "unexpected argument '") + word + "'";
    }
  }
  if (dynamic_cast<const CLI::ArgumentMismatch *>(&e)) {
    const std::string option = option_named(message);
    if (option == "--noise-from")
      return kNoiseFromNeedsTwo;
    if (!option.empty() && message.find("missing") != std::string::npos)
      return option + " needs a value";
    if (!option.empty() && message.find("At Most") != std::string::npos)
      return option + " is given more than once";
  }
  return command + message;
}

} // namespace

CommandLine parse_command_line(int argc, char **argv) {
  CommandLine line;
  CLI::App app("trace-view", "trace-view");
  add_view_options(app, line.view);
  std::vector<std::string> analyze_inputs, diff_inputs;
  CLI::App *analyze = add_analyze_command(app, line.analyze, analyze_inputs);
  CLI::App *diff = add_diff_command(app, line.diff, diff_inputs);
  CLI::App *list = add_list_command(app, line.list);
  std::vector<std::string> merge_inputs;
  CLI::App *merge_torch = add_merge_torch_command(app, line.merge_torch, merge_inputs);
  // A subcommand is the first argument or none: `trace-view run.ctrace list` reads a file named
  // list, as it always did.
  const std::string first = argc > 1 ? argv[1] : "";
  for (CLI::App *sub : {analyze, diff, list, merge_torch})
    sub->disabled(sub->get_name() != first);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &) {
    const std::vector<CLI::App *> chosen = app.get_subcommands();
    std::fputs((chosen.empty() ? app : *chosen.front()).help().c_str(), stdout);
    std::exit(0);
  } catch (const CLI::ParseError &e) {
    const std::vector<CLI::App *> chosen = app.get_subcommands();
    usage_error(said(e, app, chosen.empty() ? "" : chosen.front()->get_name() + ": "));
  }
  if (*analyze) {
    line.command = Command::analyze;
    check_analyze_args(line.analyze, analyze_inputs);
  } else if (*diff) {
    line.command = Command::diff;
    check_diff_args(line.diff, diff_inputs);
  } else if (*merge_torch) {
    line.command = Command::merge_torch;
    check_merge_torch_args(line.merge_torch, merge_inputs);
  } else if (*list) {
    line.command = Command::list;
    if (line.list.inputs.empty())
      usage_error("list: no input file");
  } else {
    check_view_args(line.view);
  }
  return line;
}

} // namespace trace_view
