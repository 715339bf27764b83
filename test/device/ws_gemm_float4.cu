// examples/warp_specialized with one change, for `trace-view diff` (docs/analysis.md, "Comparing
// two traces"): the producer warp stages its k-tiles with 16-byte loads and stores (float4)
// instead of 4-byte ones, the fix docs/guide.md suggests for the producer-bound hand-off. The
// kernel keeps its name, grid, annotations and result; only the producer's copy loop differs.
#include <cutrace/trace.h>

#include <cuda/barrier>

#include <cstdio>
#include <vector>

#include "../../examples/common/cuda_check.h"
#include "../../examples/common/timing.h"
#include "../../examples/warp_specialized/gemm_tiles.h"

using block_barrier = cuda::barrier<cuda::thread_scope_block>;

__global__ void ws_gemm(const float *a, const float *b, float *c, int n, int k) {
  TRACE_DAG("produce", "consume");
  __shared__ __align__(16) float a_tile[kStages][kTileM][kTileK];
  __shared__ __align__(16) float b_tile[kStages][kTileK][kTileN];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ block_barrier full[kStages];
  __shared__ block_barrier empty[kStages];
#pragma nv_diag_default static_var_with_dynamic_init
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      init(&full[s], kThreads);
      init(&empty[s], kThreads);
    }
  }
  __syncthreads();

  const int k_tiles = k / kTileK;
  const int row0 = blockIdx.y * kTileM;
  const int col0 = blockIdx.x * kTileN;
  if (threadIdx.x < kProducerThreads) {
    TRACE_GROUP("producer", 0);
    const int lane = threadIdx.x;
    for (int kt = 0; kt < k_tiles; ++kt) {
      TRACE_RANGE("produce", "load", kt);
      const int s = kt % kStages;
      // Slot s was last used by k-tile kt - kStages: wait until every consumer released it.
      if (kt >= kStages)
        empty[s].arrive_and_wait();
      // Four floats per load: k, n and the tile offsets are multiples of 4, so every address is
      // 16-byte aligned.
      for (int i = lane * 4; i < kTileM * kTileK; i += kProducerThreads * 4)
        *reinterpret_cast<float4 *>(&a_tile[s][i / kTileK][i % kTileK]) =
            *reinterpret_cast<const float4 *>(
                &a[(row0 + i / kTileK) * k + kt * kTileK + i % kTileK]);
      for (int i = lane * 4; i < kTileK * kTileN; i += kProducerThreads * 4)
        *reinterpret_cast<float4 *>(&b_tile[s][i / kTileN][i % kTileN]) =
            *reinterpret_cast<const float4 *>(
                &b[(kt * kTileK + i / kTileN) * n + col0 + i % kTileN]);
      (void)full[s].arrive();
      TRACE_RECORD("stage_ready", kt, "load");
    }
  } else {
    TRACE_GROUP("consumer", 32);
    const int t = threadIdx.x - kProducerThreads;
    const int row = t / (kTileN / kColsPerThread);
    const int col = (t % (kTileN / kColsPerThread)) * kColsPerThread;
    float acc[kColsPerThread] = {};
    for (int kt = 0; kt < k_tiles; ++kt) {
      TRACE_RANGE("consume", "mma", kt);
      const int s = kt % kStages;
      full[s].arrive_and_wait();
      for (int kk = 0; kk < kTileK; ++kk) {
        const float x = a_tile[s][row][kk];
        for (int j = 0; j < kColsPerThread; ++j)
          acc[j] += x * b_tile[s][kk][col + j];
      }
      (void)empty[s].arrive();
      TRACE_RECORD("stage_free", kt, "mma");
    }
    auto tok = TRACE_RANGE_START("epilogue", "store", int(blockIdx.y * gridDim.x + blockIdx.x));
    for (int j = 0; j < kColsPerThread; ++j)
      c[(row0 + row) * n + col0 + col + j] = acc[j];
    TRACE_RANGE_END(tok);
  }
}

int main(int argc, char **argv) {
  const int m = 128, n = 96, k = 256;
  std::vector<float> a(m * k), b(k * n), c(m * n, -1.0f), want(m * n, 0.0f);
  // Small integers: every product and partial sum is exact in float, so the check is exact.
  for (int i = 0; i < m * k; ++i)
    a[i] = float(i * 7 % 5 - 2);
  for (int i = 0; i < k * n; ++i)
    b[i] = float(i * 3 % 7 - 3);
  for (int i = 0; i < m; ++i)
    for (int kk = 0; kk < k; ++kk)
      for (int j = 0; j < n; ++j)
        want[i * n + j] += a[i * k + kk] * b[kk * n + j];

  float *da = nullptr, *db = nullptr, *dc = nullptr;
  CUDA_CHECK(cudaMalloc(&da, sizeof(float) * a.size()));
  CUDA_CHECK(cudaMalloc(&db, sizeof(float) * b.size()));
  CUDA_CHECK(cudaMalloc(&dc, sizeof(float) * c.size()));
  CUDA_CHECK(cudaMemcpy(da, a.data(), sizeof(float) * a.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, b.data(), sizeof(float) * b.size(), cudaMemcpyHostToDevice));

  const dim3 grid(n / kTileN, m / kTileM), block(kThreads);
  ws_gemm<<<grid, block>>>(da, db, dc, n, k);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(c.data(), dc, sizeof(float) * c.size(), cudaMemcpyDeviceToHost));
  if (const int reps = repeat_count(argc, argv))
    std::printf("ws_gemm: median %.4f ms of %d launches\n",
                median_ms(reps, [&] { ws_gemm<<<grid, block>>>(da, db, dc, n, k); }), reps);

  int wrong = 0;
  for (int i = 0; i < m * n; ++i)
    if (c[i] != want[i] && wrong++ < 5)
      std::fprintf(stderr, "c[%d][%d] = %g, want %g\n", i / n, i % n, c[i], want[i]);
  CUDA_CHECK(cudaFree(da));
  CUDA_CHECK(cudaFree(db));
  CUDA_CHECK(cudaFree(dc));
  std::printf("warp_specialized %dx%dx%d: %s\n", m, n, k, wrong ? "FAIL" : "PASS");
  return wrong ? 1 : 0;
}
