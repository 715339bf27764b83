// Host runtime (docs/guide.md): needs the CUDA runtime. Library `cutrace_capture` (automatic mode
// writes `.ctrace` files only) or `cutrace` (every format of $CUTRACE_FORMAT); link one of them.
//
// Automatic mode: rewritten launch sites call cutrace::launch(); buffers are written out at
// cutrace::flush() or at normal program exit into $CUTRACE_OUTPUT (default "debug/").
// Explicit mode: cutrace::Recorder, for launches the rewriter does not see.
#ifndef CUTRACE_HOST_H
#define CUTRACE_HOST_H

#include <memory>
#include <optional>
#include <string>

#include <cuda_runtime.h>

#include <cutrace/decode.h>
#include <cutrace/map.h>

namespace cutrace {

// A zeroed buffer for one launch of `map`'s kernel, or nullptr when tracing is off (CUTRACE=0,
// disable()), the launch selection does not record this launch (CUTRACE_LAUNCHES,
// CUTRACE_KERNELS; docs/launches.md), or no buffer can be had (docs/guide.md, "Whole runs").
// Zeroing is queued on `stream`, ahead of the kernel; the launch is copied back in the
// background once the kernel is done, into the process's run file.
Slots *launch(const KernelMap &map, dim3 grid, dim3 block, cudaStream_t stream = 0);

// Turns automatic tracing on; a non-null `dir` sets the output folder of a run not yet started.
void enable(const char *dir = nullptr);
// The same, and replaces the launch selection for later launches (null `launches`: the default;
// null `kernels`: every kernel). Returns the error for a bad selection, which then records
// nothing, as a bad CUTRACE_LAUNCHES does.
std::optional<std::string> enable(const char *dir, const char *launches,
                                  const char *kernels = nullptr);
// Later launches get nullptr (kernels then only evaluate a predicate per event).
void disable();
// Waits for every recorded launch so far to reach the run file (graph launches: their last
// replay). The run file is finished and its formats rendered at normal exit. Thread-safe.
void flush();

// Explicit mode: one buffer for one launch, owned by the caller. Records regardless of
// enable()/disable(). Throws std::runtime_error when CUDA or the file system fails.
class Recorder {
public:
  Recorder(const KernelMap &map, dim3 grid, dim3 block);
  ~Recorder();
  Recorder(const Recorder &) = delete;
  Recorder &operator=(const Recorder &) = delete;

  // Pass to the kernel's trailing `cutrace::Slots *` parameter.
  Slots *slots();
  // Synchronizes the device and writes `stem + ".ctrace"` (replacing an existing file), creating
  // the folders above it.
  void dump(const std::string &stem);
  // Synchronizes the device and decodes the buffer as it is now.
  Trace decode(const DecodeOptions &options = {});

private:
  struct State;
  std::unique_ptr<State> state_;
};

// What the markers themselves cost on the current device (docs/FORMAT.md, "Marker cost"):
// records the marker probe that traced files compile (about 20 us) and reads it. Whole runs
// do this once per device on their own; an explicit Recorder's caller passes the result as
// DecodeOptions::marker_cost. Throws std::runtime_error when the probe cannot run.
MarkerCost measure_marker_cost();

} // namespace cutrace

#endif // CUTRACE_HOST_H
