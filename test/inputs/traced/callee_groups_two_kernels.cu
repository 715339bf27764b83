// One __device__ function declaring a group, reached from two kernels: each kernel has its own
// rows (the function's twin is instantiated per kernel through its group type), and each kernel's
// map names the row: 'stage' is row 1 of `first` (after its own 'block') and row 0 of `second`.
#include <cutrace/trace.h>

__device__ float stage(const float *in, int i) {
  TRACE_GROUP("stage", 0);
  TRACE_RECORD("stage_read", i);
  return in[i] + 1.0f;
}

__global__ void first(const float *in, float *out) {
  TRACE_RECORD("first_start");
  out[threadIdx.x] = stage(in, threadIdx.x);
}

__global__ void second(const float *in, float *out) { out[threadIdx.x] = 2.0f * stage(in, 0); }

int main() {
  float *in, *out;
  cudaMalloc(&in, 256 * sizeof(float));
  cudaMalloc(&out, 256 * sizeof(float));
  first<<<2, 64>>>(in, out);
  second<<<2, 64>>>(in, out);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
