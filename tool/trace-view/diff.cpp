// `trace-view diff`: two traces of one kernel compared (cutrace/diff.h), as an aligned table on
// stdout or one JSON object with --json. Argument parsing, choosing the launches of each side and
// wiring only.
#include "diff.h"

#include "inputs.h"

#include "outputs.h"
#include <cutrace/completeness.h>
#include <filesystem>

#include <cutrace/diff.h>
#include <cutrace/run_trace.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace trace_view {

namespace {

const char *kDiffUsage =
    R"(usage: trace-view diff A.ctrace B.ctrace [--launch-a N] [--launch-b N] [--kernel NAME]
                       [--noise-from C.ctrace D.ctrace]... [--noise-factor K]
                       [--noise-threshold PCT] [--top N] [--json OUT] [--force] [--clock-ghz F]

Compares two traces of one kernel (definitions in docs/analysis.md, "Comparing two traces"): per
event name and per TRACE_DAG pair (the wait inside dst and the gap before it), count, mean, p95 and
total time per CTA in A and in B, sorted by impact = |change of total time per CTA|. A change
within run-to-run noise is marked "noise".
  --launch-a N, --launch-b N   the launch with sequence number N of A (of B). Without it, a file
                    holding several launches of the kernel is pooled: all its launches of the
                    kernel count as one sample (totals per CTA over all their CTAs)
  --kernel NAME     the kernel to compare when a file holds launches of several kernels
                    (default: the kernel of the side that has one)
  --noise-from C D  two traces of one unchanged build: per row, the |relative change| from C to D
                    is its noise; repeat for more pairs (the largest change counts)
  --noise-factor K  a change is noise when |change| <= K x the measured noise (default 3)
  --noise-threshold PCT   the noise of rows no --noise-from pair measured, in percent of the row's
                    total per CTA (default: 5 for slices, 35 for hand-offs, measured on an H200:
                    docs/analysis.md)
  --top N           rows shown in the table (default 20; 0: all). --json has every row
  --json OUT        the numbers as one JSON object (OUT '-' for stdout)
  --force           compare two different kernels (a warning instead of an error)
  --clock-ghz F     use F GHz for every row instead of the measured SM clock rates
Exit status: 0 done, 1 the output could not be written, 2 bad usage, unreadable/corrupt input,
or two different kernels without --force.
)";

struct DiffArgs {
  std::string a, b;
  std::optional<uint64_t> launch_a, launch_b;
  std::optional<std::string> kernel, json;
  std::vector<std::pair<std::string, std::string>> noise_from;
  double factor = cutrace::NoiseModel::kDefaultFactor;
  std::optional<double> threshold;
  size_t top = 20;
  bool force = false;
  std::optional<double> ghz;
};

double positive_value(const std::string &v, const std::string &what) {
  char *end = nullptr;
  const double f = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !std::isfinite(f) || f < 0)
    usage_error(what + ", got '" + v + "'");
  return f;
}

DiffArgs parse_diff_args(int argc, char **argv) {
  DiffArgs a;
  std::vector<std::string> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kDiffUsage, stdout);
      std::exit(0);
    }
    if (arg == "--force") {
      a.force = true;
    } else if (arg == "--noise-from") {
      if (i + 2 >= argc || argv[i + 1][0] == '-' || argv[i + 2][0] == '-')
        usage_error("--noise-from needs two files (two traces of one unchanged build)");
      a.noise_from.emplace_back(argv[i + 1], argv[i + 2]);
      i += 2;
    } else if (auto v = option_value(argc, argv, i, "--launch-a")) {
      a.launch_a = count_value(*v, UINT64_MAX, "--launch-a wants a launch sequence number");
    } else if (auto v = option_value(argc, argv, i, "--launch-b")) {
      a.launch_b = count_value(*v, UINT64_MAX, "--launch-b wants a launch sequence number");
    } else if (auto v = option_value(argc, argv, i, "--kernel")) {
      a.kernel = *v;
    } else if (auto v = option_value(argc, argv, i, "--json")) {
      a.json = *v;
    } else if (auto v = option_value(argc, argv, i, "--top")) {
      a.top = count_value(*v, 1u << 30, "--top wants a number of rows");
    } else if (auto v = option_value(argc, argv, i, "--noise-factor")) {
      a.factor = positive_value(*v, "--noise-factor wants a factor (0 or more)");
    } else if (auto v = option_value(argc, argv, i, "--noise-threshold")) {
      a.threshold = positive_value(*v, "--noise-threshold wants a percentage (0 or more)") / 100;
    } else if (auto v = option_value(argc, argv, i, "--clock-ghz")) {
      a.ghz = ghz_value(*v);
    } else if (arg.size() > 1 && arg[0] == '-') {
      usage_error("unknown option '" + arg + "'");
    } else {
      inputs.push_back(arg);
    }
  }
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
  return a;
}

// The decoded launches of one input and which of them a side compares.
struct LoadedSide {
  std::string path;
  cutrace::RunTrace run;
  std::set<std::string> kernels; // kernels of the decoded launches
  cutrace::DiffSide side;
};

std::string file_name(const std::string &path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// One launch (`sequence`, or the file's only one), or every launch of the file, decoded.
std::unique_ptr<LoadedSide> load(const std::string &path, std::optional<uint64_t> sequence,
                                 const cutrace::DecodeOptions &options) {
  auto out = std::make_unique<LoadedSide>();
  out->path = path;
  cutrace::Run raw = read_input(path);
  if (raw.launches.empty())
    input_error(path + ": the run holds no launch");
  if (sequence || raw.launches.size() == 1) {
    out->run = decode_one_launch(std::move(raw), path, sequence, options);
  } else {
    cutrace::Expected<cutrace::RunTrace> decoded = cutrace::decode_run(raw, path, options);
    if (!decoded)
      input_error(path + ": " + decoded.error);
    out->run = std::move(*decoded);
  }
  for (const cutrace::RunLaunch &l : out->run.launches)
    if (!l.trace.rows.empty())
      out->kernels.insert(l.trace.kernel);
  for (const cutrace::UndecodedLaunch &u : cutrace::run_completeness(out->run).undecoded)
    std::fprintf(stderr, "trace-view: warning: %s: %s not decoded, not compared: %s\n",
                 path.c_str(), cutrace::undecoded_name(u).c_str(), u.why.c_str());
  if (out->kernels.empty())
    input_error(path + ": no launch could be decoded");
  return out;
}

std::string kernel_list(const std::set<std::string> &kernels) {
  std::string s;
  for (const std::string &k : kernels)
    s += (s.empty() ? "" : ", ") + k;
  return s;
}

// Chooses the launches of `kernel` as the side (pooled when there are several).
void choose(LoadedSide &l, const std::string &kernel, std::optional<uint64_t> sequence) {
  l.side.launches.clear();
  std::vector<uint64_t> sequences;
  for (const cutrace::RunLaunch &launch : l.run.launches)
    if (launch.trace.kernel == kernel && !launch.trace.rows.empty()) {
      l.side.launches.push_back(&launch.trace);
      sequences.push_back(launch.sequence);
      if (!launch.trace.ok())
        std::fprintf(stderr,
                     "trace-view: warning: %s: launch %llu: %zu decode problems, first: %s\n",
                     l.path.c_str(), static_cast<unsigned long long>(launch.sequence),
                     launch.trace.problems.size(), launch.trace.problems.front().c_str());
    }
  l.side.label = file_name(l.path);
  if (sequence)
    l.side.label += " launch " + std::to_string(*sequence);
}

// The kernel both sides compare: --kernel, else the one kernel of a side that has only one.
std::string common_kernel(const DiffArgs &args, const LoadedSide &a, const LoadedSide &b) {
  if (args.kernel) {
    for (const LoadedSide *s : {&a, &b}) {
      if (s->kernels.count(*args.kernel))
        continue;
      const std::optional<uint64_t> &chosen = s == &a ? args.launch_a : args.launch_b;
      if (chosen)
        input_error(s->path + ": launch " + std::to_string(*chosen) + " is kernel " +
                    kernel_list(s->kernels) + ", not " + *args.kernel + " (" +
                    (s == &a ? "--launch-a" : "--launch-b") +
                    " chooses one launch; 'trace-view list " + s->path +
                    "' shows each launch's kernel)");
      input_error(s->path + ": no launch of kernel " + *args.kernel + " (it holds " +
                  kernel_list(s->kernels) + ")");
    }
    return *args.kernel;
  }
  if (a.kernels.size() == 1 && b.kernels.size() == 1) {
    const std::string &ka = *a.kernels.begin(), &kb = *b.kernels.begin();
    if (ka != kb && !args.force)
      input_error("A is kernel " + ka + ", B is kernel " + kb +
                  ": diff compares two traces of one kernel (--force compares them anyway)");
    if (ka != kb)
      std::fprintf(stderr, "trace-view: warning: comparing two kernels: %s and %s\n", ka.c_str(),
                   kb.c_str());
    return ka;
  }
  const LoadedSide &single = a.kernels.size() == 1 ? a : b;
  const LoadedSide &other = &single == &a ? b : a;
  if (single.kernels.size() == 1 && other.kernels.count(*single.kernels.begin()))
    return *single.kernels.begin();
  const LoadedSide &many = a.kernels.size() > 1 ? a : b;
  usage_error(many.path + " holds launches of " + kernel_list(many.kernels) +
              ": choose one with --kernel NAME (or a launch with --launch-a/--launch-b N)");
}

} // namespace

int diff_command(int argc, char **argv) {
  const DiffArgs args = parse_diff_args(argc, argv);
  cutrace::DecodeOptions options;
  options.ghz_override = args.ghz;

  std::error_code same_error;
  if (std::filesystem::equivalent(args.a, args.b, same_error) && args.launch_a == args.launch_b)
    std::fprintf(stderr, "trace-view: warning: A and B are the same file (%s): every change is 0\n",
                 args.a.c_str());
  std::unique_ptr<LoadedSide> a = load(args.a, args.launch_a, options);
  std::unique_ptr<LoadedSide> b = load(args.b, args.launch_b, options);
  const std::string kernel = common_kernel(args, *a, *b);
  choose(*a, a->kernels.count(kernel) ? kernel : *a->kernels.begin(), args.launch_a);
  choose(*b, b->kernels.count(kernel) ? kernel : *b->kernels.begin(), args.launch_b);

  cutrace::NoiseModel noise;
  noise.factor = args.factor;
  if (args.threshold)
    noise.slice_threshold = noise.handoff_threshold = *args.threshold;
  for (const auto &[c_path, d_path] : args.noise_from) {
    std::unique_ptr<LoadedSide> c = load(c_path, std::nullopt, options);
    std::unique_ptr<LoadedSide> d = load(d_path, std::nullopt, options);
    for (LoadedSide *s : {c.get(), d.get()}) {
      if (!s->kernels.count(kernel))
        input_error(s->path + ": --noise-from needs launches of kernel " + kernel + " (it holds " +
                    kernel_list(s->kernels) + ")");
      choose(*s, kernel, std::nullopt);
    }
    cutrace::add_noise_measurement(noise, c->side, d->side);
  }

  const cutrace::TraceDiff diff = cutrace::diff_traces(a->side, b->side, noise);
  Outputs out;
  if (args.json)
    out.add(*args.json, cutrace::diff_json(diff));
  if (!args.json || *args.json != "-")
    out.add("-", cutrace::format_diff(diff, args.top));
  return out.commit() ? 0 : 1;
}

} // namespace trace_view
