// Warp-specialized Hopper GEMM (sm_90a), C = A * B^T in f16 with f32 accumulation: a persistent
// CTA of three warpgroups walks its output tiles (64 x 128 of C each). Warpgroup 0 is the
// producer: one thread of it streams the k-tiles of A and B into a 4-stage shared-memory ring with
// 1-D bulk copies (cp.async.bulk, the TMA engine) that complete on a "full" mbarrier per stage.
// Warpgroups 1 and 2 are consumers that ping-pong over the tiles (consumer i takes the CTA's
// tiles i, i + 2, ...): each waits for a stage, multiplies it with four wgmma m64n128k16, releases
// it on its "empty" mbarrier, and writes its tile of C while the other consumer multiplies.
// A and B are packed on the host into the core-matrix layout wgmma reads without swizzling
// (pipeline_tiles.h), so one stage is two contiguous copies. The host checks C exactly (small
// integers) against a reference GEMM on the GPU, itself spot-checked on the CPU.
//
// Traced, each CTA has a "producer" row (thread 0: a "load" range per stage it fills, a
// "wait_empty" range while the ring is full) and one row per consumer warpgroup,
// consumer[wg1] and consumer[wg2] ("wait" for the stage, "compute" for its wgmma, "epilogue"
// per tile). Every load and compute carries the CTA's running stage number, so the arrows of
// TRACE_DAG join each load to the compute of the same stage, whichever consumer row it is in.
//
//   hopper_pipeline [--m M] [--n N] [--k K] [--ctas C] [--repeat R]
//     defaults 4096 x 4096 x 4096, one CTA per SM; M a multiple of 64, N of 128, K of 64.
//     --repeat R: R timed launches of the kernel alone (median); in a traced build the original
//     kernel and the recording twin, interleaved.
//   Build options: -DHOPPER_MMA_IN_FLIGHT=1 keeps one wgmma group in flight across stages (below);
//   -DHOPPER_LEADING_IS_K=0 flips the descriptor reading (pipeline_tiles.h).
#include <cutrace/trace.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "../common/cuda_check.h"
#include "../common/timing.h"
#include "pipeline_tiles.h"

constexpr int kThreads = 384; // producer warpgroup + two consumer warpgroups
constexpr int kWarpgroupThreads = 128;
constexpr size_t kSharedBytes = size_t(kStages) * kStageBytes;
// 0: a consumer waits for each stage's multiplications before it releases the stage and waits
// for the next one, so the tensor cores idle (and anything added to the k-loop shows) between
// stages. 1: one stage's wgmma group stays in flight while the next stage is waited for and
// issued, as CUTLASS's mainloops do; a stage is released when the group after it is issued.
#ifndef HOPPER_MMA_IN_FLIGHT
#define HOPPER_MMA_IN_FLIGHT 0
#endif
constexpr bool kMmaInFlight = HOPPER_MMA_IN_FLIGHT != 0;

__global__ void __launch_bounds__(kThreads, 1)
    ws_wgmma_gemm(const __half *a_tiles, const __half *b_tiles, float *c, int m, int n,
                  int k_tiles) {
  TRACE_DAG("load", "compute");
  extern __shared__ __align__(128) unsigned char ring[];
  __shared__ uint64_t full[kStages];  // the producer filled the stage
  __shared__ uint64_t empty[kStages]; // its consumer is done with it
  const int m_tiles = m / kBlockM;
  const int tiles = m_tiles * (n / kBlockN);
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      hopper::mbarrier_init(&full[s], 1);
      hopper::mbarrier_init(&empty[s], kWarpgroupThreads);
    }
    hopper::fence_mbarrier_init();
  }
  __syncthreads();

  // `stage` counts the CTA's stages, 0, 1, ... over all its tiles: stage % kStages is the ring
  // slot, stage / kStages the use of that slot, whose parity the barriers' phases follow.
  if (threadIdx.x < kWarpgroupThreads) {
    if (threadIdx.x == 0) {
      TRACE_GROUP("producer", 0);
      int stage = 0;
      for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int mt = tile % m_tiles, nt = tile / m_tiles;
        for (int kt = 0; kt < k_tiles; ++kt, ++stage) {
          const int slot = stage % kStages;
          if (stage >= kStages) {
            TRACE_RANGE("wait_empty", "wait", stage);
            hopper::mbarrier_wait(&empty[slot], (stage / kStages - 1) & 1);
          }
          TRACE_RANGE("load", "tma", stage);
          unsigned char *dst = ring + size_t(slot) * kStageBytes;
          hopper::mbarrier_arrive_expect_tx(&full[slot], kStageBytes);
          hopper::bulk_copy_to_shared(dst,
                                      a_tiles + (size_t(mt) * k_tiles + kt) * kBlockM * kBlockK,
                                      kTileABytes, &full[slot]);
          hopper::bulk_copy_to_shared(dst + kTileABytes,
                                      b_tiles + (size_t(nt) * k_tiles + kt) * kBlockN * kBlockK,
                                      kTileBBytes, &full[slot]);
        }
      }
    }
  } else {
    TRACE_GROUPS("consumer", 128, 128);
    const int consumer = threadIdx.x / kWarpgroupThreads - 1; // 0 or 1
    const int t = threadIdx.x % kWarpgroupThreads;
    // The consumers take turns through two named barriers: the next tile's consumer starts its
    // k-loop only when this one's is done, so a consumer never waits on a stage barrier more than
    // one phase ahead of it (the parity wait could not tell), and the multiplications alternate.
    const int local_tiles = (tiles - int(blockIdx.x) + int(gridDim.x) - 1) / int(gridDim.x);
    for (int local = consumer; local < local_tiles; local += 2) {
      const int tile = blockIdx.x + local * gridDim.x;
      const int mt = tile % m_tiles, nt = tile / m_tiles;
      if (local > 0)
        hopper::named_barrier_sync(1 + local % 2, 2 * kWarpgroupThreads);
      float acc[64] = {};
      int stage = local * k_tiles;
      for (int kt = 0; kt < k_tiles; ++kt, ++stage) {
        const int slot = stage % kStages;
        {
          TRACE_RANGE("wait", "wait", stage);
          hopper::mbarrier_wait(&full[slot], (stage / kStages) & 1);
        }
        {
          TRACE_RANGE("compute", "mma", stage);
          const uint32_t a = hopper::smem_address(ring + size_t(slot) * kStageBytes);
          hopper::wgmma_fence();
#pragma unroll
          for (int s = 0; s < kKSteps; ++s)
            hopper::wgmma_m64n128k16(acc, tile_descriptor(a, s, kLeadingIsK),
                                     tile_descriptor(a + kTileABytes, s, kLeadingIsK), true);
          hopper::wgmma_commit();
          if constexpr (kMmaInFlight) {
            hopper::wgmma_wait<1>(); // the previous stage's group is done: release its slot
            if (kt > 0)
              hopper::mbarrier_arrive(&empty[(stage - 1) % kStages]);
          } else {
            hopper::wgmma_wait<0>();
            hopper::mbarrier_arrive(&empty[slot]);
          }
        }
      }
      if (local + 1 < local_tiles)
        hopper::named_barrier_arrive(1 + (local + 1) % 2, 2 * kWarpgroupThreads);
      if constexpr (kMmaInFlight) {
        hopper::wgmma_wait<0>();
        hopper::mbarrier_arrive(&empty[(stage - 1) % kStages]);
      }
      TRACE_RANGE("epilogue", "store", tile);
      float *c_tile = c + size_t(mt) * kBlockM * n + size_t(nt) * kBlockN;
#pragma unroll
      for (int i = 0; i < 64; i += 2)
        *reinterpret_cast<float2 *>(c_tile + size_t(hopper::fragment_row(t, i)) * n +
                                    hopper::fragment_col(t, i)) = make_float2(acc[i], acc[i + 1]);
    }
  }
}

// The reference: one thread per element of C, b transposed to K x N so a warp reads a row of it.
__global__ void reference_gemm(const __half *a, const float *b_kn, float *c, int m, int n, int k) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y;
  if (col >= n)
    return;
  float sum = 0.0f;
  for (int kk = 0; kk < k; ++kk)
    sum += __half2float(a[size_t(row) * k + kk]) * b_kn[size_t(kk) * n + col];
  c[size_t(row) * n + col] = sum;
}

namespace {

// Small integers: every product and partial sum is exact in f32 up to K = 2^20 / 4.
float small_int(unsigned i, unsigned salt) {
  const unsigned h = (i + salt) * 2654435761u;
  return float(int((h >> 13) % 5u) - 2);
}

} // namespace

int main(int argc, char **argv) {
  const int m = int_option(argc, argv, "--m", 4096), n = int_option(argc, argv, "--n", 4096),
            k = int_option(argc, argv, "--k", 4096);
  const int reps = int_option(argc, argv, "--repeat", 0);
  if (m <= 0 || n <= 0 || k <= 0 || m % kBlockM || n % kBlockN || k % kBlockK) {
    std::fprintf(stderr, "hopper_pipeline: M must be a multiple of %d, N of %d, K of %d\n", kBlockM,
                 kBlockN, kBlockK);
    return 2;
  }
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major != 9) {
    std::fprintf(stderr, "hopper_pipeline: needs an sm_90 GPU (this is sm_%d%d)\n", prop.major,
                 prop.minor);
    return 2;
  }
  const int tiles = (m / kBlockM) * (n / kBlockN);
  const int ctas = std::min(tiles, int_option(argc, argv, "--ctas", prop.multiProcessorCount));
  const int k_tiles = k / kBlockK;

  std::vector<__half> a(size_t(m) * k), b(size_t(n) * k);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = __float2half(small_int(unsigned(i), 11));
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = __float2half(small_int(unsigned(i), 977));
  const std::vector<__half> a_tiles = pack_tiles(a, m, k, kBlockM);
  const std::vector<__half> b_tiles = pack_tiles(b, n, k, kBlockN);
  std::vector<float> b_kn(size_t(k) * n);
  for (int j = 0; j < n; ++j)
    for (int kk = 0; kk < k; ++kk)
      b_kn[size_t(kk) * n + j] = __half2float(b[size_t(j) * k + kk]);

  __half *da, *da_tiles, *db_tiles;
  float *db_kn, *dc, *dref;
  CUDA_CHECK(cudaMalloc(&da, sizeof(__half) * a.size()));
  CUDA_CHECK(cudaMalloc(&da_tiles, sizeof(__half) * a.size()));
  CUDA_CHECK(cudaMalloc(&db_tiles, sizeof(__half) * b.size()));
  CUDA_CHECK(cudaMalloc(&db_kn, sizeof(float) * b_kn.size()));
  CUDA_CHECK(cudaMalloc(&dc, sizeof(float) * size_t(m) * n));
  CUDA_CHECK(cudaMalloc(&dref, sizeof(float) * size_t(m) * n));
  CUDA_CHECK(cudaMemcpy(da, a.data(), sizeof(__half) * a.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(
      cudaMemcpy(da_tiles, a_tiles.data(), sizeof(__half) * a.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(
      cudaMemcpy(db_tiles, b_tiles.data(), sizeof(__half) * b.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db_kn, b_kn.data(), sizeof(float) * b_kn.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dc, 0xff, sizeof(float) * size_t(m) * n)); // NaN: unwritten shows

  CUDA_CHECK(cudaFuncSetAttribute(ws_wgmma_gemm, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  int(kSharedBytes)));
  const dim3 grid(ctas), block(kThreads);
  ws_wgmma_gemm<<<grid, block, kSharedBytes>>>(da_tiles, db_tiles, dc, m, n, k_tiles);
  CUDA_CHECK(cudaGetLastError());
  reference_gemm<<<dim3((n + 255) / 256, m), 256>>>(da, db_kn, dref, m, n, k);
  CUDA_CHECK(cudaGetLastError());
  std::vector<float> got(size_t(m) * n), want(size_t(m) * n);
  CUDA_CHECK(cudaMemcpy(got.data(), dc, sizeof(float) * got.size(), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(want.data(), dref, sizeof(float) * want.size(), cudaMemcpyDeviceToHost));

  // The reference itself, at 1024 places (all of them for small problems), on the CPU.
  int wrong = 0;
  const size_t count = size_t(m) * n, step = std::max<size_t>(1, count / 1024);
  for (size_t i = 0; i < count; i += step) {
    float sum = 0.0f;
    for (int kk = 0; kk < k; ++kk)
      sum += __half2float(a[(i / n) * k + kk]) * __half2float(b[(i % n) * k + kk]);
    if (sum != want[i] && wrong++ < 5)
      std::fprintf(stderr, "reference c[%zu][%zu] = %g, want %g\n", i / n, i % n, want[i], sum);
  }
  for (size_t i = 0; i < count; ++i)
    if (!(got[i] == want[i]) && wrong++ < 5)
      std::fprintf(stderr, "c[%zu][%zu] = %g, want %g\n", i / n, i % n, got[i], want[i]);

  if (reps > 0) {
#ifdef CUTRACE_TRACED_H
    // Launched directly (this branch is not rewritten): the original kernel, and the twin
    // recording into one buffer of our own, so the kernel alone is timed, without the per-launch
    // buffer set-up of the automatic launch path.
    auto original = [&] {
      ws_wgmma_gemm<<<grid, block, kSharedBytes>>>(da_tiles, db_tiles, dc, m, n, k_tiles);
    };
    cutrace::Recorder recorder(cutrace_map::ws_wgmma_gemm, grid, block);
    cutrace::Slots *slots = recorder.slots();
    CUDA_CHECK(cudaFuncSetAttribute(ws_wgmma_gemm_cutrace_traced,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    int(kSharedBytes)));
    auto twin = [&] {
      ws_wgmma_gemm_cutrace_traced<<<grid, block, kSharedBytes>>>(da_tiles, db_tiles, dc, m, n,
                                                                  k_tiles, slots);
    };
    original();
    twin();
    const std::vector<float> ms = interleaved_medians(reps, original, twin);
    CUDA_CHECK(cudaGetLastError());
    std::printf("hopper_pipeline: time build=traced original_ms=%.4f twin_ms=%.4f ratio=%.4f "
                "reps=%d\n",
                ms[0], ms[1], ms[1] / ms[0], reps);
#else
    auto original = [&] {
      ws_wgmma_gemm<<<grid, block, kSharedBytes>>>(da_tiles, db_tiles, dc, m, n, k_tiles);
    };
    original();
    const std::vector<float> ms = interleaved_medians(reps, original);
    CUDA_CHECK(cudaGetLastError());
    std::printf("hopper_pipeline: time build=stripped original_ms=%.4f reps=%d\n", ms[0], reps);
#endif
    std::printf("hopper_pipeline: %.1f TFLOP/s (original)\n",
                2.0 * m * n * double(k) / (ms[0] * 1e-3) / 1e12);
  }

  for (void *p :
       {(void *)da, (void *)da_tiles, (void *)db_tiles, (void *)db_kn, (void *)dc, (void *)dref})
    CUDA_CHECK(cudaFree(p));
  std::printf("hopper_pipeline %dx%dx%d, %d CTAs, %d tiles: %s\n", m, n, k, ctas, tiles,
              wrong ? "FAIL" : "PASS");
  return wrong ? 1 : 0;
}
