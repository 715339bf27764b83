// Groups declared on the call path, as CUTLASS 3 writes a warp-specialized kernel: the __global__
// body has no annotations and calls the kernel class's entry, which decides each warp group's
// role and declares its row there (TRACE_GROUP for the producer, TRACE_GROUPS for the consumer
// warp groups); the mainloop's load() and mma() record into the row of the role that calls them.
#include <cutrace/trace.h>

__device__ __forceinline__ void load(float *smem, const float *in, int k) {
  TRACE_RECORD("tma_issue", k, "load");
  smem[threadIdx.x % 128] = in[k * 128 + threadIdx.x % 128];
}

__device__ __forceinline__ float mma(const float *smem, int k) {
  TRACE_RANGE("mma", "math", k);
  return smem[(threadIdx.x + k) % 128] * 2.0f;
}

__device__ __forceinline__ void roles(const float *in, float *out, int tiles) {
  __shared__ float smem[128];
  const int warp_group = threadIdx.x / 128;
  if (warp_group == 0) {
    TRACE_GROUP("producer", 0);
    for (int k = 0; k < tiles; ++k)
      load(smem, in, k);
  } else {
    TRACE_GROUPS("consumer", 128, 128);
    float acc = 0.0f;
    for (int k = 0; k < tiles; ++k) {
      TRACE_DAG("tma_issue", "mma");
      acc += mma(smem, k);
    }
    out[blockIdx.x * 256 + threadIdx.x - 128] = acc;
  }
}

__global__ void gemm(const float *in, float *out, int tiles) { roles(in, out, tiles); }

int main() {
  float *in, *out;
  cudaMalloc(&in, 4096 * sizeof(float));
  cudaMalloc(&out, 4096 * sizeof(float));
  gemm<<<4, 384>>>(in, out, 8);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
