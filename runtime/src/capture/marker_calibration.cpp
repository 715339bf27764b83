// Records the marker probe (docs/FORMAT.md, "Marker cost").
#include "marker_calibration.h"

#include "clock_alignment.h"
#include "device_buffer.h"

#include <cutrace/marker_probe_map.h>

#include <atomic>
#include <string>

namespace cutrace {

namespace {
std::atomic<const void *> offered_probe{nullptr};
} // namespace

bool detail::offer_marker_probe(const void *kernel) {
  const void *none = nullptr;
  offered_probe.compare_exchange_strong(none, kernel);
  return true;
}

Expected<std::vector<uint8_t>> record_marker_probe() {
  using E = Expected<std::vector<uint8_t>>;
  const void *kernel = offered_probe.load();
  if (kernel == nullptr)
    return E::failure("no marker probe kernel (no file of the program was rewritten --traced)");
  const KernelMap map{"cutrace_marker_probe", 1, detail::kMarkerProbeEvents, Clock::clock64,
                      detail::kMarkerProbeMapJson};
  const dim3 grid(1), block(detail::kMarkerProbeThreads);
  cudaStream_t stream = nullptr;
  if (cudaError_t err = create_probe_stream(&stream);
      err != cudaSuccess) {
    (void)cudaGetLastError();
    return E::failure(std::string("no stream for the marker probe: ") + cudaGetErrorString(err));
  }
  Expected<DeviceBuffer> buffer = DeviceBuffer::allocate(map, grid, block, stream);
  E out = E::failure(buffer ? "" : "the marker probe's buffer: " + buffer.error);
  if (buffer) {
    Slots *slots = buffer->slots();
    void *args[] = {&slots};
    if (cudaError_t err = cudaLaunchKernel(kernel, grid, block, args, 0, stream);
        err != cudaSuccess)
      out = E::failure(std::string("the marker probe did not launch: ") + cudaGetErrorString(err));
    else
      out = buffer->read_back_compact(stream);
    buffer->release(stream);
  }
  cudaStreamSynchronize(stream);
  cudaStreamDestroy(stream);
  (void)cudaGetLastError(); // leave no error for the program's own checks
  return out;
}

} // namespace cutrace
