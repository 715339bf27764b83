// A realistic kernel's traced-versus-stripped time: a shared-memory tiled SGEMM (4096^3, 64x64
// tiles, 4x4 outputs per thread) with a range around each k-tile's load and math, as a kernel
// author would annotate it. Built stripped and traced by test/device/prepare_h200.sh.
#include <cutrace/trace.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int kTile = 64, kDepth = 16, kThreads = 256;

// MinBlocks = 0: no occupancy request; 5: `__launch_bounds__(256, 5)`, which keeps the traced
// kernel at the stripped kernel's 48 registers (5 CTAs per SM) instead of the 64 ptxas picks.
template <int MinBlocks>
__global__ void __launch_bounds__(kThreads, MinBlocks)
    sgemm(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c, int n) {
  __shared__ float as[kDepth][kTile];
  __shared__ float bs[kDepth][kTile];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < n; k0 += kDepth) {
    {
      TRACE_RANGE("load", "mem", k0 / kDepth);
      for (int i = threadIdx.x; i < kDepth * kTile; i += kThreads) {
        const int r = i / kDepth, k = i % kDepth;
        as[k][r] = a[(row0 + r) * n + k0 + k];
        const int kk = i / kTile, cc = i % kTile;
        bs[kk][cc] = b[(k0 + kk) * n + col0 + cc];
      }
      __syncthreads();
    }
    {
      TRACE_RANGE("math", "fma", k0 / kDepth);
#pragma unroll
      for (int k = 0; k < kDepth; ++k)
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
          for (int j = 0; j < 4; ++j)
            acc[i][j] = fmaf(as[k][ty * 4 + i], bs[k][tx * 4 + j], acc[i][j]);
      __syncthreads();
    }
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      c[(row0 + ty * 4 + i) * n + col0 + tx * 4 + j] = acc[i][j];
}

template <int MinBlocks> void timeGemm(float *a, float *b, float *c, int n, int reps) {
  const dim3 grid(n / kTile, n / kTile), block(kThreads);
  int nn = n;
#ifdef CUTRACE_TRACED_H
  // The twin itself, with a buffer of its own: a traced build's launch routing would run the
  // original kernel for a template instance whose pair no <<<>>> launch registered.
  const void *kernel = reinterpret_cast<const void *>(&sgemm_cutrace_traced<MinBlocks>);
  cutrace::Recorder recorder(cutrace_map::sgemm, grid, block);
  cutrace::Slots *slots = recorder.slots();
  void *args[] = {&a, &b, &c, &nn, &slots};
  const char *variant = "traced";
#else
  const void *kernel = reinterpret_cast<const void *>(&sgemm<MinBlocks>);
  void *args[] = {&a, &b, &c, &nn};
  const char *variant = "stripped";
#endif
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> ms(reps);
  cudaLaunchKernel(kernel, grid, block, args, 0, 0);
  for (float &m : ms) {
    cudaEventRecord(start);
    cudaLaunchKernel(kernel, grid, block, args, 0, 0);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    cudaEventElapsedTime(&m, start, stop);
  }
  std::sort(ms.begin(), ms.end());
  float check = 0;
  cudaMemcpy(&check, c, sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("gemm,%s,minblocks=%d,%d,%d,%.4f,%.4f,%.4f,%s\n", variant, MinBlocks, n,
              n / kDepth * 4, ms[reps / 2], ms.front(), ms.back(),
              check == float(n) ? "PASS" : "FAIL");
#ifdef CUTRACE_TRACED_H
  if (MinBlocks == 0)
    recorder.dump("sgemm");
#endif
}

int main(int argc, char **argv) {
  const int n = 4096, reps = argc > 1 ? std::atoi(argv[1]) : 21;
  std::vector<float> h(size_t(n) * n, 1.0f);
  float *a, *b, *c;
  cudaMalloc(&a, h.size() * sizeof(float));
  cudaMalloc(&b, h.size() * sizeof(float));
  cudaMalloc(&c, h.size() * sizeof(float));
  cudaMemcpy(a, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(b, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);
  timeGemm<0>(a, b, c, n, reps);
  timeGemm<5>(a, b, c, n, reps);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
