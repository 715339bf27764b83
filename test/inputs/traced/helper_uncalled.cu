// A helper with annotations that only an unannotated kernel calls records nothing: the traced
// build warns, gives it no twin, and the kernel keeps calling the original.
#include <cutrace/trace.h>

__device__ float halve(float v) {
  TRACE_RECORD("halve");
  return v * 0.5f;
}

__global__ void plain_kernel(float *x) { x[threadIdx.x] = halve(x[threadIdx.x]); }

__global__ void traced_kernel(float *x) {
  TRACE_RANGE("body");
  x[threadIdx.x] += 1.0f;
}
