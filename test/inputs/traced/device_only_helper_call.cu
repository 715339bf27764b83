// A plain kernel that calls an annotated helper only where the device compilation sees it: the
// kernel gets a twin and the call reaches the helper's twin, so the helper's range records.
#include <cutrace/trace.h>

__device__ float halve(float v) {
  TRACE_RECORD("halve", 1);
  return v * 0.5f;
}

__global__ void calls_under_arch(float *x) {
#if defined(__CUDA_ARCH__)
  x[threadIdx.x] = halve(x[threadIdx.x]);
#else
  x[threadIdx.x] = 0.0f;
#endif
}

void run(float *x) { calls_under_arch<<<1, 32>>>(x); }
