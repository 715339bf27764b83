// A function declaring a group that no kernel of the file calls: its group is a row of no
// kernel, so it records nothing (a warning), gets no twin, and the kernel keeps its own rows.
#include <cutrace/trace.h>

__device__ float orphan(float v) {
  TRACE_GROUP("orphan", 0);
  TRACE_RECORD("orphan_step");
  return v * 3.0f;
}

__global__ void own_rows(float *x) {
  TRACE_RECORD("own");
  x[threadIdx.x] *= 2.0f;
}

int main() {
  float *x;
  cudaMalloc(&x, 32 * sizeof(float));
  own_rows<<<1, 32>>>(x);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
