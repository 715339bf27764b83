// Annotations in __device__ helpers (forceinline, templates, a noinline one, a device lambda),
// called from an annotated kernel and from an unannotated one; TRACE_GROUPS and predicated
// markers. Stripped, the machine code is the never-annotated file's.
#include <cutrace/trace.h>

__device__ __forceinline__ float warp_sum(float v) {
  TRACE_RANGE("warp_sum", "reduce");
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

template <int N> __device__ float load_tile(const float *p, int tile) {
  TRACE_RECORD("load", tile, "mem");
  float acc = 0.0f;
  for (int i = 0; i < N; ++i)
    acc += p[tile * N + i];
  return warp_sum(acc);
}

__device__ __noinline__ float scale(float v, int t) {
  TRACE_RECORD_IF(t % 8 == 0, "scale_sampled", t);
  return v * 0.5f;
}

__global__ void rows(const float *in, float *out, int tiles) {
  TRACE_GROUPS("warp", 32);
  for (int t = 0; t < tiles; ++t) {
    TRACE_RANGE_IF(t % 2 == 0, "tile", "main", t);
    float v = load_tile<4>(in, t);
    out[t * 32 + threadIdx.x % 32] = scale(v, t);
  }
  auto finish = [&](int t) {
    TRACE_RECORD("finish", t);
    out[t] += 1.0f;
  };
  finish(threadIdx.x);
}

__global__ void unannotated(const float *in, float *out) {
  out[threadIdx.x] = scale(warp_sum(in[threadIdx.x]), 3);
}

int main() {
  float *in, *out;
  cudaMalloc(&in, 1024 * sizeof(float));
  cudaMalloc(&out, 1024 * sizeof(float));
  rows<<<2, 128>>>(in, out, 8);
  unannotated<<<1, 32>>>(in, out);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
