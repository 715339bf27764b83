// EXPECT: ok
// Annotations in a __host__ __device__ function: its twin is __device__ only, so the host
// compilation has nothing to record.
#include <cutrace/trace.h>

__host__ __device__ int twice(int v) {
  TRACE_RECORD("twice", v);
  return v * 2;
}

__global__ void k(int *x) { x[threadIdx.x] = twice(x[threadIdx.x]); }
