// What the launch entry points (launch.h) ask the automatic-mode session besides launch().
#ifndef CUTRACE_SRC_SESSION_H
#define CUTRACE_SRC_SESSION_H

#include <cutrace/map.h>

#include <cuda_runtime.h>

#include <cstdint>

namespace cutrace::detail {

// One launch of a kernel, counted: its launch index (the kernel's launch ordinal in the process)
// and whether the launch selection records it (docs/launches.md). Allocates nothing.
struct Admission {
  bool record = false;
  uint32_t index = 0;
};
Admission admit(const KernelMap &map);

// A zeroed buffer for an admitted launch, or nullptr when none can be had (the reason is
// counted and reported at exit).
Slots *record_launch(const KernelMap &map, dim3 grid, dim3 block, cudaStream_t stream,
                     uint32_t index);

// A launch that ran unrecorded although the selection asked for it is about to be counted: the
// exit report (docs/launches.md, "At exit") is made sure to run.
void report_at_exit();

} // namespace cutrace::detail

#endif // CUTRACE_SRC_SESSION_H
