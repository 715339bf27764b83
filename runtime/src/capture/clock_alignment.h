// The offset between the host's CLOCK_REALTIME and a GPU's %globaltimer, so that host events
// (launch enqueue times) and several GPUs or processes share one time axis (docs/guide.md,
// "Whole runs").
#ifndef CUTRACE_SRC_CAPTURE_CLOCK_ALIGNMENT_H
#define CUTRACE_SRC_CAPTURE_CLOCK_ALIGNMENT_H

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace cutrace {

struct ClockAlignment {
  bool aligned = false;
  int64_t host_minus_gpu_ns = 0; // host CLOCK_REALTIME - globaltimer
  uint64_t error_ns = 0;         // |true offset - measured| is at most this
  std::string why_not;           // when not aligned
};

// Measures the current device's offset by ping-pong through mapped host memory with a one-thread
// kernel: the host stamps its clock before and after each round trip and the kernel stamps
// globaltimer in between, so the offset is known to half the shortest round trip. Takes about a
// millisecond; needs the thread's capture mode to allow a kernel launch and a synchronization.
ClockAlignment measure_clock_alignment();

namespace detail {
// Declared for device code in <cutrace/clock_probe.h>, which traced files include.
bool offer_clock_probe(const void *kernel);
} // namespace detail

// Host CLOCK_REALTIME in ns since the Unix epoch (the launch enqueue stamps).
uint64_t host_now_ns();

// A non-blocking stream of the current device's highest priority, for the runtime's one-CTA
// probes (clock alignment, marker cost): the block scheduler starts such a CTA ahead of the CTAs
// still waiting of kernels already running (CUDA's stream priorities).
cudaError_t create_probe_stream(cudaStream_t *stream);

} // namespace cutrace

#endif // CUTRACE_SRC_CAPTURE_CLOCK_ALIGNMENT_H
