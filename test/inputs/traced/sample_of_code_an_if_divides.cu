// EXPECT: 7:3: error: TRACE_SAMPLE samples different code in the host and device compilations (an #if after it); put the #if inside what it samples
// The host pass samples the call, the device pass the loop: the traced build writes one copy, so
// it refuses.
#include <cutrace/trace.h>
__device__ void other(float *p) { p[1] = 2.0f; }
__global__ void k(float *p, int n) {
  TRACE_SAMPLE(n > 0);
#ifdef __CUDA_ARCH__
  for (int i = 0; i < n; ++i) {
    TRACE_RECORD("i", i);
    p[i] = 1.0f;
  }
#else
  other(p);
#endif
}
