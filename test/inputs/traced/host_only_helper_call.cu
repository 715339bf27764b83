// A call that only the host compilation sees never runs on the GPU: the kernel gets no twin, the
// call stays as written, and the helper, which no kernel reaches on the device, is warned about.
#include <cutrace/trace.h>

__host__ __device__ float twice(float v) {
  TRACE_RECORD("twice");
  return v * 2.0f;
}

__global__ void calls_on_host_side(float *x) {
#if !defined(__CUDA_ARCH__)
  x[threadIdx.x] = twice(x[threadIdx.x]);
#else
  x[threadIdx.x] += 1.0f;
#endif
}

void run(float *x) { calls_on_host_side<<<1, 32>>>(x); }
