// One timeline with torch.profiler (docs/torch.md, "One timeline with torch.profiler"): the
// profiler's exported Chrome trace (JSON) and a cutrace run written as one Perfetto protobuf
// trace, each recorded launch matched to the profiler's slice of that kernel (by kernel name,
// device, stream and host-aligned time) and its in-kernel rows placed under that slice's stream
// track. Pure C++17, no CUDA: part of library `cutrace_analysis`.
#ifndef CUTRACE_TORCH_MERGE_H
#define CUTRACE_TORCH_MERGE_H

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <cutrace/expected.h>
#include <cutrace/export.h>
#include <cutrace/run_trace.h>

namespace cutrace {

struct TorchMergeOptions {
  // A launch matches a profiler kernel slice that overlaps its span on the host axis, or lies
  // at most this far from it (the GPU-to-host alignment bound and the time from a kernel's
  // start to its first row's start are far smaller).
  double tolerance_ns = 20'000;
  // Reads the records of a launch the run holds without them (cutrace::with_detail).
  std::function<std::optional<RunLaunch>(const RunLaunch &)> load_detail;
  PftraceEncoding encoding = PftraceEncoding::compact;
};

// A recorded launch and the profiler slice it was placed under.
struct TorchMatch {
  uint64_t sequence = 0;
  std::string kernel;          // the run's name of it
  std::string profiler_name;   // the profiler's (demangled, with its parameters)
  int64_t pid = 0, tid = 0;    // the profiler's process (GPU) and thread (stream) ids
  double shift_ns = 0;         // how far its rows were moved to lie inside the slice
};

struct TorchMergeReport {
  uint64_t profiler_events = 0;  // complete ("X") events written
  uint64_t profiler_kernels = 0; // of which GPU kernels (category "kernel")
  std::vector<TorchMatch> matched;
  std::vector<std::pair<uint64_t, std::string>> unmatched; // launch sequence, why
  std::map<uint64_t, int64_t> streams; // run stream (cudaStream_t value) -> profiler stream id
  double max_shift_ns = 0;             // the largest |shift| of a matched launch
  // How far the run was moved onto the profiler's axis beyond what the two clocks state: 0 when
  // they agree; else the offset found from the launches themselves (the profiler's clock is not
  // the run's host clock).
  double clock_offset_ns = 0;
};

// The profiler's kernel name reduced to what a decode map names: no return type, parameter
// list or template arguments, the last `::` component ("void ns::gemm<128>(float const*)" ->
// "gemm"), and a traced twin's name is its kernel's ("gemm_cutrace_traced" -> "gemm").
std::string torch_kernel_base_name(const std::string &name);

// Parses `profiler_json` (torch.profiler's export_chrome_trace; a baseTimeNanoseconds key puts
// its `ts` on host CLOCK_REALTIME, as the run's axis is) and writes the merged trace to `sink`.
// Fails, writing nothing, when the JSON is not a profiler trace or the run is not host-aligned;
// a launch no slice matches is listed in the report, not an error.
Expected<TorchMergeReport> merge_torch_profile(const std::string &profiler_json,
                                               const RunTrace &run, const ByteSink &sink,
                                               const TorchMergeOptions &options = {});

} // namespace cutrace

#endif // CUTRACE_TORCH_MERGE_H
