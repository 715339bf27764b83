// The kernel the runtime uses to measure what the markers themselves cost on the GPU at hand
// (docs/FORMAT.md, "Marker cost"), with the clock64 recorder: globaltimer ticks (32 ns on an
// H200, up to 1 us elsewhere) are coarser than what a marker costs, so its times stay as
// recorded. Included by every traced file, so nvcc compiles it with the recorder the program's
// own kernels use, for the program's own architectures.
#ifndef CUTRACE_MARKER_PROBE_H
#define CUTRACE_MARKER_PROBE_H

#include <cutrace/device.h>
#include <cutrace/marker_probe_map.h>

namespace cutrace {
namespace detail {

// Offers the probe to the runtime; the first one offered is used.
bool offer_marker_probe(const void *kernel);

// A dependent chain of FMAs, kept in order by its data: the instructions an instant overlaps
// when it sits in code that waits on its own results (a latency-bound loop).
template <int kFmas> __device__ __forceinline__ float probe_chain(float x) {
#pragma unroll
  for (int i = 0; i < kFmas; ++i)
    x = fmaf(x, 1.0001f, 0.5f);
  asm volatile("" : "+f"(x)); // the chain ends here, before the marker after it
  return x;
}

// Where the probe's chains store their results, as code amid markers does (internal linkage, as
// the probe's).
static __device__ float marker_probe_sink;

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
  float x = float(threadIdx.x); // 0: thread 0 alone goes on
  for (int i = 0; i < kMarkerProbeReps; ++i) {
    Range<G> chain(group, 6, 0);
    x = probe_chain<2 * kMarkerProbeChainHalf>(x);
  }
  for (int i = 0; i < kMarkerProbeReps; ++i) {
    Range<G> chain(group, 7, 0);
    x = probe_chain<kMarkerProbeChainHalf>(x);
    group.instant_if(true, 8, 0);
    x = probe_chain<kMarkerProbeChainHalf>(x);
  }
  // Markers amid code that produces a result it then stores, as a pipeline's stages inside its
  // k-tile: the same 256-FMA chain with nothing inside (9), in kMarkerProbeParts parts each in a
  // range of its own (10, 11), and with an instant after each part (12, 13).
  for (int i = 0; i < kMarkerProbeReps; ++i) {
    Range<G> chain(group, 9, 0);
    x = probe_chain<2 * kMarkerProbeChainHalf * kMarkerProbeParts>(x);
    marker_probe_sink = x;
  }
  for (int i = 0; i < kMarkerProbeReps; ++i) {
    Range<G> chain(group, 10, 0);
#pragma unroll
    for (int p = 0; p < kMarkerProbeParts; ++p) {
      Range<G> part(group, 11, 0);
      x = probe_chain<2 * kMarkerProbeChainHalf>(x);
    }
    marker_probe_sink = x;
  }
  for (int i = 0; i < kMarkerProbeReps; ++i) {
    Range<G> chain(group, 12, 0);
#pragma unroll
    for (int p = 0; p < kMarkerProbeParts; ++p) {
      x = probe_chain<2 * kMarkerProbeChainHalf>(x);
      group.instant_if(true, 13, 0);
    }
    marker_probe_sink = x;
  }
  group.instant_if(x == -1.0f, 8, 0); // never true (x only grows from 0): keeps the chains
}

} // namespace detail
} // namespace cutrace

#if !defined(__CUDA_ARCH__)
static const bool cutrace_marker_probe_offered =
    cutrace::detail::offer_marker_probe((const void *)&cutrace::detail::marker_probe);
#endif

#endif // CUTRACE_MARKER_PROBE_H
