// What the markers themselves cost on the GPU at hand: the runtime records the marker probe of
// <cutrace/marker_probe.h> once per device and keeps its buffer in the run file's DEV section;
// the decoder derives the costs from it (docs/FORMAT.md, "Marker cost").
#ifndef CUTRACE_SRC_CAPTURE_MARKER_CALIBRATION_H
#define CUTRACE_SRC_CAPTURE_MARKER_CALIBRATION_H

#include <cutrace/expected.h>

#include <cstdint>
#include <vector>

namespace cutrace {

// Records the probe on the current device (one warp, about 74 us on an H100) and returns its
// buffer in the compact layout, or why it could not: no traced file offered a probe, or CUDA
// failed.
Expected<std::vector<uint8_t>> record_marker_probe();

namespace detail {
// Declared for device code in <cutrace/marker_probe.h>, which traced files include.
bool offer_marker_probe(const void *kernel);
} // namespace detail

} // namespace cutrace

#endif // CUTRACE_SRC_CAPTURE_MARKER_CALIBRATION_H
