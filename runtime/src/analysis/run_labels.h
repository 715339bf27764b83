// How the run exports name a run's kernels, GPUs and streams, so the Perfetto export, the summary
// and the page agree (docs/viewer.md, "Runs in Perfetto and in the summary"). Internal to
// cutrace_analysis.
#ifndef CUTRACE_ANALYSIS_RUN_LABELS_H
#define CUTRACE_ANALYSIS_RUN_LABELS_H

#include <cutrace/run_trace.h>

#include <cstdint>
#include <string>

namespace cutrace::run_labels {

// The launch's kernel, from its decode map ("?" when the launch names none).
const std::string &kernel_name(const RunTrace &run, const RunLaunch &launch);
// "rank 0 · GPU 1 (NVIDIA H200)"; without a rank "train 4242 · GPU 1 (...)"; a single-launch
// file, which records no program: its file name. A run of several hosts names the host after the
// rank: "rank 0 · node1 · GPU 1 (...)".
std::string device_label(const RunTrace &run, const RunDevice &device);
// The cudaStream_t value as a pointer prints, "0x7f3a..."; 0 is "0 (legacy default)".
std::string stream_label(uint64_t stream);

} // namespace cutrace::run_labels

#endif // CUTRACE_ANALYSIS_RUN_LABELS_H
