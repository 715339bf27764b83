// Host runtime (docs/guide.md): needs the CUDA runtime. Library `cutrace_capture` (automatic mode
// writes `.ctrace` files only) or `cutrace` (every format of $CUTRACE_FORMAT); link one of them.
//
// Automatic mode: rewritten launch sites call cutrace::launch(); buffers are written out at
// cutrace::flush() or at normal program exit into $CUTRACE_OUTPUT (default "debug/").
// Explicit mode: cutrace::Recorder, for launches the rewriter does not see.
#ifndef CUTRACE_HOST_H
#define CUTRACE_HOST_H

#include <memory>
#include <string>

#include <cuda_runtime.h>

#include <cutrace/decode.h>
#include <cutrace/map.h>

namespace cutrace {

// A zeroed buffer for one launch of `map`'s kernel, or nullptr when tracing is off (CUTRACE=0,
// disable()), the kernel already has CUTRACE_MAX_LAUNCHES (default 64) recorded launches, or the
// buffer cannot be allocated. Allocation is synchronous; zeroing and the header copy are queued
// on `stream`, ahead of the kernel.
Slots *launch(const KernelMap &map, dim3 grid, dim3 block, cudaStream_t stream = 0);

// Turns automatic tracing on; a non-null `dir` replaces the output folder.
void enable(const char *dir = nullptr);
// Later launches get nullptr (kernels then only evaluate a predicate per event).
void disable();
// Waits for the device, copies back every recorded launch, frees its buffer and writes its
// outputs. Also runs at normal exit. Safe to call from several threads.
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

} // namespace cutrace

#endif // CUTRACE_HOST_H
