// What --auto costs a kernel (docs/auto.md, "Cost"): a memory-bound kernel written two ways (a
// grid-stride loop, one element per thread) and a compute-bound one (a loop of FMA chains), each
// launched once to warm up and then TIMES times; a checksum of each result, so the traced
// build's results can be compared with the plain build's. Written without annotations: the
// traced build is `trace-rewrite --traced --auto`.
//   cost [TIMES]        (kernel times: under ncu, gpu__time_duration per launch)
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

__global__ void triad_loop(const float *x, float *y, float a, size_t n) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    y[i] = a * x[i] + y[i];
}

__global__ void triad_flat(const float *x, float *y, float a, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  y[i] = a * x[i] + y[i];
}

__global__ void fma_chains(float *out, int iterations, float b, float c) {
  float v0 = threadIdx.x * 1e-3f, v1 = v0 + 1.f, v2 = v0 + 2.f, v3 = v0 + 3.f;
  for (int k = 0; k < iterations; ++k) {
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      v0 = fmaf(v0, b, c);
      v1 = fmaf(v1, b, c);
      v2 = fmaf(v2, b, c);
      v3 = fmaf(v3, b, c);
    }
  }
  out[size_t(blockIdx.x) * blockDim.x + threadIdx.x] = v0 + v1 + v2 + v3;
}

static double checksum(const float *device, size_t n) {
  std::vector<float> host(n);
  cudaMemcpy(host.data(), device, n * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (size_t i = 0; i < n; i += 97)
    sum += host[i];
  return sum;
}

int main(int argc, char **argv) {
  const int times = argc > 1 ? std::atoi(argv[1]) : 10;
  const size_t n = size_t(1) << 26; // 256 MB per array
  float *x, *y, *out;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  const int ctas = 132 * 8, threads = 256;
  cudaMalloc(&out, size_t(ctas) * threads * sizeof(float));
  std::vector<float> ones(n, 1.0f);
  cudaMemcpy(x, ones.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(y, 0, n * sizeof(float));
  for (int t = 0; t <= times; ++t)
    triad_loop<<<132 * 16, 256>>>(x, y, 0.5f, n);
  for (int t = 0; t <= times; ++t)
    triad_flat<<<unsigned((n + 255) / 256), 256>>>(x, y, 0.25f, n);
  for (int t = 0; t <= times; ++t)
    fma_chains<<<ctas, threads>>>(out, 2048, 0.999f, 0.001f);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("cost: %s triad=%.6e fma=%.6e\n", cudaGetErrorString(e), checksum(y, n),
              checksum(out, size_t(ctas) * threads));
  return e == cudaSuccess ? 0 : 1;
}
