// Reading, choosing and decoding one launch, and the checks of the option values every
// trace-view command reads (inputs.h).
#include "inputs.h"

#include <cutrace/export.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace trace_view {

void usage_error(const std::string &why) {
  std::fprintf(stderr, "trace-view: error: %s (see --help)\n", why.c_str());
  std::exit(2);
}

void input_error(const std::string &why) {
  std::fprintf(stderr, "trace-view: error: %s\n", why.c_str());
  std::exit(2);
}

uint64_t count_value(const std::string &v, uint64_t max, const std::string &what) {
  char *end = nullptr;
  errno = 0;
  const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno || n > max || v[0] == '-' || v[0] == '+')
    usage_error(what + ", got '" + v + "'");
  return n;
}

double ghz_value(const std::string &v) {
  char *end = nullptr;
  const double f = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !std::isfinite(f) || f <= 0 || f > 100)
    usage_error("--clock-ghz wants a positive rate in GHz, got '" + v + "'");
  return f;
}

cutrace::Run read_input(const std::string &path, const cutrace::RunReadOptions &options) {
  cutrace::Expected<cutrace::Run> raw = cutrace::read_run_file(path, options);
  if (!raw)
    input_error(raw.error);
  return std::move(*raw);
}

std::string launches_held(const cutrace::Run &run) {
  if (run.launches.empty())
    return "no launch";
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const cutrace::LaunchRecord &l : run.launches)
    lo = std::min(lo, l.sequence), hi = std::max(hi, l.sequence);
  if (run.launches.size() == 1)
    return "1 launch, sequence number " + std::to_string(lo);
  return std::to_string(run.launches.size()) + " launches, sequence numbers " + std::to_string(lo) +
         " to " + std::to_string(hi);
}

cutrace::RunTrace decode_one_launch(cutrace::Run run, const std::string &path,
                                    std::optional<uint64_t> sequence,
                                    const cutrace::DecodeOptions &options) {
  auto chosen = run.launches.begin();
  if (sequence) {
    chosen = std::find_if(run.launches.begin(), run.launches.end(),
                          [&](const cutrace::LaunchRecord &l) { return l.sequence == *sequence; });
    if (chosen == run.launches.end())
      input_error(path + ": no launch " + std::to_string(*sequence) + ": the run holds " +
                  launches_held(run));
  }
  if (chosen->buffer_dropped) { // read without records: this launch's are read back alone
    if (chosen->body_offset == 0)
      return decode_one_launch(read_input(path), path, sequence, options);
    cutrace::Expected<std::vector<uint8_t>> buffer = cutrace::read_launch_buffer(path, *chosen);
    if (!buffer)
      input_error(path + ": " + buffer.error);
    chosen->buffer = std::move(*buffer);
    chosen->buffer_dropped = false;
  }
  cutrace::Run one;
  one.run_json = std::move(run.run_json);
  one.devices = std::move(run.devices);
  one.maps = std::move(run.maps);
  one.end_json = std::move(run.end_json);
  one.problems = std::move(run.problems);
  one.launches.push_back(std::move(*chosen));
  cutrace::Expected<cutrace::RunTrace> decoded = cutrace::decode_run(one, path, options);
  if (!decoded)
    input_error(path + ": " + decoded.error);
  if (decoded->launches.empty())
    input_error(
        path + ": " +
        (decoded->problems.empty() ? "the launch cannot be decoded" : decoded->problems.front()));
  return std::move(*decoded);
}

LoadedLaunch load_launch(const std::string &path, std::optional<uint64_t> sequence,
                         const cutrace::DecodeOptions &options, const std::string &flag) {
  cutrace::RunReadOptions lean; // the chosen launch's records are read alone: memory of one launch
  lean.max_buffer_bytes = 0;
  cutrace::Run raw = read_input(path, lean);
  if (raw.launches.empty())
    input_error(path + ": the run holds no launch");
  if (!sequence && raw.launches.size() > 1)
    usage_error(path + " holds " + launches_held(raw) + ": choose one with " + flag + " N");
  cutrace::RunTrace run = decode_one_launch(std::move(raw), path, sequence, options);
  cutrace::RunLaunch &launch = run.launches.front();
  LoadedLaunch out;
  out.path = path;
  out.sequence = launch.sequence;
  out.map = run.maps[launch.map];
  out.trace = std::move(launch.trace);
  if (out.trace.rows.empty() && !out.trace.ok())
    input_error(path + ": " + out.trace.problems.front());
  if (!out.trace.ok())
    std::fprintf(stderr, "trace-view: warning: %s: %zu decode problems, first: %s\n", path.c_str(),
                 out.trace.problems.size(), out.trace.problems.front().c_str());
  return out;
}

} // namespace trace_view
