// A helper with annotations that no kernel of the file reaches records nothing: the traced build
// warns and gives it no twin. A kernel without annotations that calls an annotated helper gets a
// twin of its own (its calls record into its block group).
#include <cutrace/trace.h>

__device__ float halve(float v) {
  TRACE_RECORD("halve");
  return v * 0.5f;
}

__device__ float unused(float v) { return halve(v); }

__device__ float third(float v) {
  TRACE_RECORD("third");
  return v / 3.0f;
}

__global__ void plain_kernel(float *x) { x[threadIdx.x] = third(x[threadIdx.x]); }

__global__ void traced_kernel(float *x) {
  TRACE_RANGE("body");
  x[threadIdx.x] += 1.0f;
}
