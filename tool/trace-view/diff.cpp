// `trace-view diff`: two traces of one kernel compared (cutrace/diff.h), as an aligned table on
// stdout or one JSON object with --json. Choosing the launches of each side and wiring only: the
// arguments are parsed in command_line.cpp.
#include "diff.h"

#include "inputs.h"
#include "outputs.h"

#include <cutrace/completeness.h>
#include <cutrace/diff.h>
#include <cutrace/run_trace.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace trace_view {

namespace {

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

int diff_command(const DiffArgs &args) {
  cutrace::DecodeOptions options;
  options.ghz_override = args.ghz;
  options.run_marker_cost = !args.raw_times;

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
  if (args.factor)
    noise.factor = *args.factor;
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
