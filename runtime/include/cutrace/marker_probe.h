// The kernel the runtime uses to measure what the markers themselves cost on the GPU at hand
// (docs/FORMAT.md, "Marker cost"), with the clock64 recorder: globaltimer ticks (32 ns on an
// H200, up to 1 us elsewhere) are coarser than what a marker costs, so its times stay as recorded. Included by every traced file, so nvcc compiles
// them with the recorder the program's own kernels use, for the program's own architectures.
#ifndef CUTRACE_MARKER_PROBE_H
#define CUTRACE_MARKER_PROBE_H

#include <cutrace/device.h>
#include <cutrace/marker_probe_map.h>

namespace cutrace {
namespace detail {

// Offers the probe to the runtime; the first one offered is used.
bool offer_marker_probe(const void *kernel);

// What thread 0 of one CTA records, kMarkerProbeReps times each, in one row: the shapes and
// sites of cutrace/marker_probe_map.h.

// Internal linkage, as clock_probe: every traced file compiles its own copy in its device pass.
static __global__ void marker_probe(Slots *slots) {
  using G = Group<kMarkerProbeEvents, Clock::clock64>;
  G group(slots, 0, 1, 0);
  if (threadIdx.x != 0)
    return;
  for (int i = 0; i < kMarkerProbeReps; ++i) {
    Range<G> empty(group, 0, 0);
  }
  for (int i = 0; i < kMarkerProbeReps; ++i) {
    Range<G> around(group, 1, 0);
    group.instant_if(true, 2, 0);
  }
  for (int i = 0; i < kMarkerProbeReps; ++i) {
    Range<G> outer(group, 3, 0);
    {
      Range<G> inner(group, 4, 0);
    }
  }
  for (int i = 0; i < kMarkerProbeReps; ++i) {
    auto token = group.start(5, 0);
    group.end(token);
  }
}

} // namespace detail
} // namespace cutrace

#if !defined(__CUDA_ARCH__)
static const bool cutrace_marker_probe_offered =
    cutrace::detail::offer_marker_probe((const void *)&cutrace::detail::marker_probe);
#endif

#endif // CUTRACE_MARKER_PROBE_H
