// A decoded run: every recorded launch of one or more processes on one time axis
// (docs/FORMAT.md, "Runs"; docs/guide.md, "Whole runs"). Pure C++17, no CUDA: `cutrace_analysis`.
#ifndef CUTRACE_RUN_TRACE_H
#define CUTRACE_RUN_TRACE_H

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <cutrace/completeness.h>
#include <cutrace/decode.h>
#include <cutrace/run.h>

namespace cutrace {

// One recording process (one input file).
struct RunProcess {
  std::string program; // executable name
  uint64_t pid = 0;
  std::string host;
  int rank = -1;       // job rank (docs/FORMAT.md, "Runs": the variables it is read from); -1 none
  int local_rank = -1; // rank among the job's processes on its host; -1 = none
  // The host clock's error bound when the run file was opened (the kernel's, kept by the time
  // daemon); nullopt: the host's clock was not synchronised, or the file does not say.
  std::optional<uint64_t> host_clock_error_ns;
  std::string file; // where it was read from (empty for an in-memory run)
  std::string launches, kernels; // the launch selection in force (docs/launches.md)
  bool complete = false;         // the run's END section is present
  // From the END section: per kernel name, launches seen and recorded by the process.
  std::map<std::string, std::pair<uint64_t, uint64_t>> kernel_launches;
  uint64_t pool_waits = 0, pool_skipped = 0, disk_skipped = 0;
};

// One GPU of one process.
struct RunDevice {
  uint32_t process = 0; // index into RunTrace::processes
  uint32_t index = 0;   // CUDA device ordinal in that process
  std::string name;
  uint32_t clock_khz = 0, sms = 0;
  // host CLOCK_REALTIME - globaltimer, measured at start-up; `aligned` false: not measured.
  bool aligned = false;
  int64_t host_minus_gpu_ns = 0;
  // |true offset - used offset| <= this over the whole run: the start measurement's bound, grown
  // by the drift seen when the offset was measured again at the end.
  uint64_t alignment_error_ns = 0;
  int64_t drift_ns = 0; // offset at the end - offset at the start (0: not measured again)
  // The start-up measurement failed (the GPU was busy past the probe's 2 s) and the offset is
  // the one measured at the run's end: how far it drifted over the run is not known.
  bool aligned_at_end_only = false;
  // What the markers cost on this GPU (its DEV section's marker probe), or why it is not known
  // (docs/FORMAT.md, "Marker cost"); taken out of its clock64 launches' times when decoded.
  std::optional<MarkerCost> marker_cost;
  std::string marker_cost_problem;
  bool marker_cost_taken_out = false; // decode_run took it out (DecodeOptions::run_marker_cost)
};

struct RunLaunch {
  uint32_t device = 0; // index into RunTrace::devices
  uint32_t map = 0;    // index into RunTrace::maps
  uint64_t stream = 0;
  uint32_t launch_index = 0; // the kernel's launch ordinal in its process
  uint64_t sequence = 0;
  bool in_graph = false;
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  // Run axis (ns since RunTrace::origin_ns): the launch's earliest row start, latest row end.
  double begin_ns = 0, end_ns = 0;
  double offset_ns = 0;             // trace.origin_ns on the run axis: add to trace's *_ns
  std::optional<double> enqueue_ns; // host enqueue time on the run axis, when the clock is aligned
  Trace trace;                      // the launch as decode() gives it; empty when `detail` is false
  // Without detail: the gaps its row headers tell (dropped events, rows never ended).
  Completeness header_gaps;
  // Its section in its process's file (LaunchRecord::body_offset...): with_detail() reads it.
  uint64_t body_offset = 0, body_length = 0;
  uint32_t section_flags = 0;
  // False when the run was read with a buffer budget that left this launch's records out
  // (RunReadOptions): begin_ns/end_ns still hold, the CTAs are not known.
  bool detail = true;
};

struct RunTrace {
  std::vector<RunProcess> processes;
  std::vector<RunDevice> devices;
  std::vector<DecodeMap> maps;
  std::vector<RunLaunch> launches; // sorted by begin_ns
  // The axis: host CLOCK_REALTIME ns when every device is aligned (host_aligned), else raw
  // globaltimer ns. origin_ns is its earliest launch begin or enqueue.
  uint64_t origin_ns = 0;
  bool host_aligned = false;
  // Distinct hosts among the processes. Each process is placed by its own host's clock, so two
  // processes of different hosts may be shifted against each other by up to host_clock_bound_ns
  // (the two largest hosts' clock errors added; 0 on one host, whose processes share a clock);
  // nullopt: some host's clock error is not known. Each GPU's alignment bound comes on top.
  uint32_t hosts = 1;
  std::optional<uint64_t> host_clock_bound_ns = 0;
  std::vector<std::string> problems;
  // Launch sections the files hold but that could not be read (cut short, damaged); the launches
  // that were read but did not decode are in `launches`, with their problems.
  std::vector<UndecodedLaunch> lost;
};

// Called after each decoded launch, for progress on long runs.
using RunProgress = std::function<void(size_t decoded, size_t total)>;

// Decodes every launch of `run` (read from `file`, for messages) onto one axis. Fails only when
// the run's own sections (RUN, DEV, END) are not valid JSON; a launch or map that cannot be
// decoded is a problem, and the rest is decoded.
Expected<RunTrace> decode_run(const Run &run, const std::string &file = {},
                              const DecodeOptions &options = {}, const RunProgress &progress = {});
// A launch read without its records (detail false), with them: its buffer read again from its
// process's file and decoded, on the same place of the run axis. nullopt when it cannot be (no
// file, no map, the file changed). Exporters that write launch by launch call it for each, so a
// run of any length costs the memory of its largest launch.
std::optional<RunLaunch> with_detail(const RunTrace &run, const RunLaunch &launch,
                                     const DecodeOptions &options = {});

// Several processes (ranks) of one job as one timeline: one process each, one axis. Runs whose
// devices are not all host-aligned stay on raw globaltimer, with a problem saying so.
RunTrace merge_runs(std::vector<RunTrace> runs);

} // namespace cutrace

#endif // CUTRACE_RUN_TRACE_H
