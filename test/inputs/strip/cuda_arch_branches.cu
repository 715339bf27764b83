// Strip rule: annotations in both branches of `#ifdef __CUDA_ARCH__ ... #else ... #endif` are
// stripped (each pass sees only one branch; strip sees both).
#include <cutrace/trace.h>
__global__ void arch_split(int *out) {
  int i = threadIdx.x;
#ifdef __CUDA_ARCH__
  TRACE_RECORD("device_pass", i);
  out[i] = __CUDA_ARCH__ + i;
#else
  TRACE_RECORD("host_pass", i);
  out[i] = -1; TRACE_RECORD("host_after");
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  TRACE_RANGE("hopper", "arch");
  out[i] += 1;
#elif defined(__CUDA_ARCH__)
  TRACE_RANGE("older", "arch");
  out[i] += 2;
#endif
}
