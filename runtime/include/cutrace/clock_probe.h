// The kernel the runtime uses to measure a GPU's globaltimer against the host clock
// (docs/guide.md, "Whole runs"). Included by every traced file, so nvcc compiles it for the
// program's own architectures and the runtime need not JIT-compile its PTX fallback at start-up.
#ifndef CUTRACE_CLOCK_PROBE_H
#define CUTRACE_CLOCK_PROBE_H

#include <cstdint>

namespace cutrace {
namespace detail {

// Offers `kernel` (a clock_probe instance) to the runtime; the first one offered is used.
bool offer_clock_probe(const void *kernel);

// Waits for request n in flag[0], stamps %globaltimer into out[n], acknowledges n in flag[1].
// `flag` and `out` are mapped host memory; one thread. A request not made within 200 ms ends
// the probe: under a profiler that runs each kernel to its end before the launch returns
// (Nsight Compute), the host cannot ask while the probe waits, and the probe must not wait for
// ever (the runtime then records the clocks as not aligned, docs/guide.md "Whole runs").
// Internal linkage: every traced file has its own copy, compiled in its device pass too (a
// template instantiated only by the host pass's reference would have no device code).
static __global__ void clock_probe(volatile uint32_t *flag, volatile uint64_t *out,
                                   uint32_t rounds) {
  constexpr uint64_t kPatienceNs = 200000000ull;
  for (uint32_t n = 1; n <= rounds; ++n) {
    uint64_t t, since;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(since));
    do {
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
      if (t - since > kPatienceNs)
        return;
    } while (flag[0] < n);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); // after the request is seen
    out[n] = t;
    __threadfence_system();
    flag[1] = n;
    __threadfence_system();
  }
}

} // namespace detail
} // namespace cutrace

#if !defined(__CUDA_ARCH__)
// One offer per translation unit, at start-up (host pass only).
static const bool cutrace_clock_probe_offered =
    cutrace::detail::offer_clock_probe((const void *)&cutrace::detail::clock_probe);
#endif

#endif // CUTRACE_CLOCK_PROBE_H
