// A function declaring a group, called in the kernel's loop: the kernel constructs the group at
// its entry and each call continues its row and cursor (one row, every iteration's records). The
// same with a __noinline__ function, which reaches the group through the one handed down.
#include <cutrace/trace.h>

__device__ __forceinline__ void step(float *out, int t) {
  TRACE_GROUP("stepper", 32);
  TRACE_RANGE("step", "main", t);
  out[t] += 1.0f;
}

__device__ __noinline__ void drain(float *out, int t) {
  TRACE_GROUPS("drainers", 32);
  TRACE_RECORD("drain", t);
  out[t] -= 1.0f;
}

__global__ void looped(float *out, int tiles) {
  for (int t = 0; t < tiles; ++t) {
    step(out, t);
    drain(out, t);
  }
}

int main() {
  float *out;
  cudaMalloc(&out, 64 * sizeof(float));
  looped<<<1, 64>>>(out, 16);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
