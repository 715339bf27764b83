// Synthetic ranks of one job made from a recorded run (docs/FORMAT.md, "Runs"): the same launches
// as another process would have written them, with its own rank, host, GPU ordinal and pid, on
// a host whose clock reads a chosen offset from the original's. Used by make_rank_files and the
// merge tests; needs only the run container (cutrace_format) and nlohmann::json.
#ifndef CUTRACE_TEST_SUPPORT_RANK_FILES_H
#define CUTRACE_TEST_SUPPORT_RANK_FILES_H

#include <cutrace/run.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace cutrace::test_support {

struct RankIdentity {
  int rank = 0, local_rank = 0;
  std::string host = "node00";
  uint64_t pid = 1000;
  // How far this host's CLOCK_REALTIME reads ahead of the recording host's (negative: behind).
  int64_t host_clock_offset_ns = 0;
  // The host's clock error bound for the RUN section; nullopt writes none (not synchronised).
  std::optional<uint64_t> host_clock_error_ns;
};

namespace rank_files_detail {

inline uint64_t shifted(uint64_t host_ns, int64_t by) {
  return host_ns == 0 ? 0 : uint64_t(int64_t(host_ns) + by); // 0: not known, stays so
}

// Every host-clock reading of a JSON section moved by `by`: times and host - GPU offsets.
inline void shift_host_clock(nlohmann::json &j, int64_t by) {
  for (const char *key : {"start_unix_ns", "end_unix_ns"})
    if (j.contains(key) && j[key].is_number())
      j[key] = shifted(j[key].get<uint64_t>(), by);
  if (j.contains("host_minus_gpu_ns") && j["host_minus_gpu_ns"].is_number())
    j["host_minus_gpu_ns"] = j["host_minus_gpu_ns"].get<int64_t>() + by;
  if (j.contains("devices_at_end"))
    for (nlohmann::json &d : j["devices_at_end"])
      shift_host_clock(d, by);
}

} // namespace rank_files_detail

// `run` as the process `who` would have recorded it: RUN names its rank, local rank, host and pid
// (and the host clock's error when given), every device is ordinal `who.local_rank` (one GPU per
// process, as launchers give them), and every host-clock reading (start, end, enqueue times, the
// devices' host - GPU offsets) moves by who.host_clock_offset_ns. GPU times are untouched.
inline Run as_rank(Run run, const RankIdentity &who) {
  using rank_files_detail::shift_host_clock;
  const int64_t by = who.host_clock_offset_ns;
  nlohmann::json head = nlohmann::json::parse(run.run_json);
  head["rank"] = who.rank;
  head["local_rank"] = who.local_rank;
  head["host"] = who.host;
  head["pid"] = who.pid;
  if (who.host_clock_error_ns)
    head["host_clock_error_ns"] = *who.host_clock_error_ns;
  else
    head.erase("host_clock_error_ns");
  shift_host_clock(head, by);
  run.run_json = head.dump();
  for (std::string &text : run.devices) {
    nlohmann::json d = nlohmann::json::parse(text);
    d["index"] = who.local_rank;
    shift_host_clock(d, by);
    text = d.dump();
  }
  if (!run.end_json.empty()) {
    nlohmann::json end = nlohmann::json::parse(run.end_json);
    shift_host_clock(end, by);
    if (end.contains("devices_at_end"))
      for (nlohmann::json &d : end["devices_at_end"])
        d["index"] = who.local_rank;
    run.end_json = end.dump();
  }
  for (LaunchRecord &l : run.launches) {
    l.device = uint32_t(who.local_rank);
    l.host_enqueue_ns = rank_files_detail::shifted(l.host_enqueue_ns, by);
  }
  return run;
}

// Writes `run` (read with its buffers) to `path`; an error message, or nullopt when written.
inline std::optional<std::string> write_run(const Run &run, const std::string &path) {
  Expected<RunWriter *> w = RunWriter::create(path, run.run_json);
  if (!w)
    return w.error;
  std::unique_ptr<RunWriter> writer(*w);
  for (const std::string &m : run.maps)
    if (std::optional<std::string> err = writer->add_map(m))
      return err;
  for (const std::string &d : run.devices)
    if (std::optional<std::string> err = writer->add_device(d))
      return err;
  for (const LaunchRecord &l : run.launches)
    if (std::optional<std::string> err = writer->add_launch(l))
      return err;
  return writer->finish(run.end_json);
}

} // namespace cutrace::test_support

#endif // CUTRACE_TEST_SUPPORT_RANK_FILES_H
