// Warp-per-row layernorm, y = (x - mean) / sqrt(var + eps) * gamma + beta over rows of 1024
// floats: 1024-thread CTAs, each of the 32 warps normalises one row at a time, in a persistent
// loop over the rows (warp w of CTA b takes rows b * 32 + w, then every gridDim.x * 32 further).
// A lane holds 32 floats of its row in registers; mean and variance come from warp shuffles, with
// no __syncthreads after gamma and beta are staged, so every warp runs at its own pace. The host
// checks y against a CPU reference in double precision (exit 1 on a mismatch).
//
// Traced, every warp of every CTA has its own row, warp[w0] ... warp[w31]: one "load", "reduce"
// (mean, centring, variance), "normalize" (times 1/std) and "store" (gamma, beta, write) range
// per row it normalised (payload: the row index), plus, for every 8th row only (TRACE_RANGE_IF,
// TRACE_RECORD_IF: no slot is used for the others), a "row" range around the whole row and a
// "sample" instant, in lane "sampled".
//
//   layernorm [--rows R] [--ctas C] [--repeat N]
//     defaults 65536 rows, one CTA per SM (at 64 registers a thread, one 1024-thread CTA fits).
//     --repeat N: N timed launches of the kernel alone (median); in a traced build the original
//     kernel and the recording twin, interleaved.
#include <cutrace/trace.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "../common/cuda_check.h"
#include "../common/timing.h"

constexpr int kCols = 1024;                // floats per row
constexpr int kThreads = 1024;             // per CTA: 32 warps
constexpr int kWarps = kThreads / 32;      // rows in flight per CTA
constexpr int kVectors = kCols / (32 * 4); // float4 per lane per row
constexpr float kEps = 1e-5f;

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void __launch_bounds__(kThreads)
    layernorm_rows(const float4 *x, const float4 *gamma, const float4 *beta, float4 *y, int rows) {
  TRACE_GROUPS("warp", 32);
  // gamma and beta are the same for every row: staged once per CTA.
  __shared__ float4 gamma_s[kCols / 4], beta_s[kCols / 4];
  for (int i = threadIdx.x; i < kCols / 4; i += blockDim.x) {
    gamma_s[i] = gamma[i];
    beta_s[i] = beta[i];
  }
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int row = blockIdx.x * kWarps + warp; row < rows; row += gridDim.x * kWarps) {
    TRACE_RANGE_IF(row % 8 == 0, "row", "sampled", row);
    const float4 *in = x + size_t(row) * (kCols / 4);
    float4 v[kVectors];
    {
      TRACE_RANGE("load", "phase", row);
#pragma unroll
      for (int i = 0; i < kVectors; ++i)
        v[i] = in[i * 32 + lane];
    }
    float mean, inv_std;
    {
      TRACE_RANGE("reduce", "phase", row);
      float sum = 0.0f;
#pragma unroll
      for (int i = 0; i < kVectors; ++i)
        sum += (v[i].x + v[i].y) + (v[i].z + v[i].w);
      mean = warp_sum(sum) / kCols;
      float squares = 0.0f;
#pragma unroll
      for (int i = 0; i < kVectors; ++i) { // centred in place: the row stays 32 registers
        v[i].x -= mean, v[i].y -= mean, v[i].z -= mean, v[i].w -= mean;
        squares += (v[i].x * v[i].x + v[i].y * v[i].y) + (v[i].z * v[i].z + v[i].w * v[i].w);
      }
      inv_std = rsqrtf(warp_sum(squares) / kCols + kEps);
    }
    {
      TRACE_RANGE("normalize", "phase", row);
#pragma unroll
      for (int i = 0; i < kVectors; ++i)
        v[i].x *= inv_std, v[i].y *= inv_std, v[i].z *= inv_std, v[i].w *= inv_std;
    }
    {
      // Scaled and shifted as it is written: the row never needs more than its 32 registers
      // (the timestamps between phases keep the compiler from fusing them).
      TRACE_RANGE("store", "phase", row);
      float4 *out = y + size_t(row) * (kCols / 4);
#pragma unroll
      for (int i = 0; i < kVectors; ++i) {
        const float4 g = gamma_s[i * 32 + lane], b = beta_s[i * 32 + lane];
        out[i * 32 + lane] = make_float4(v[i].x * g.x + b.x, v[i].y * g.y + b.y, v[i].z * g.z + b.z,
                                         v[i].w * g.w + b.w);
      }
    }
    TRACE_RECORD_IF(row % 8 == 0, "sample", row, "sampled");
  }
}

namespace {

float uniform(unsigned i, unsigned salt) { // in [-1, 1)
  const unsigned h = (i + salt) * 2654435761u ^ (i >> 7) * 40503u;
  return float(h >> 8) / float(1u << 23) - 1.0f;
}

} // namespace

int main(int argc, char **argv) {
  const int rows = int_option(argc, argv, "--rows", 65536);
  const int reps = int_option(argc, argv, "--repeat", 0);
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  const int ctas = int_option(argc, argv, "--ctas", prop.multiProcessorCount);
  if (rows <= 0 || ctas <= 0) {
    std::fprintf(stderr, "layernorm: --rows and --ctas must be positive\n");
    return 2;
  }

  const size_t count = size_t(rows) * kCols;
  std::vector<float> x(count), gamma(kCols), beta(kCols), y(count);
  for (size_t i = 0; i < count; ++i) // a row-dependent offset, so the mean matters
    x[i] = uniform(unsigned(i), 3) + 0.25f * float(int(i / kCols % 13) - 6);
  for (int c = 0; c < kCols; ++c) {
    gamma[c] = 1.0f + 0.5f * uniform(unsigned(c), 17);
    beta[c] = 0.1f * uniform(unsigned(c), 29);
  }

  float *dx, *dgamma, *dbeta, *dy;
  CUDA_CHECK(cudaMalloc(&dx, sizeof(float) * count));
  CUDA_CHECK(cudaMalloc(&dy, sizeof(float) * count));
  CUDA_CHECK(cudaMalloc(&dgamma, sizeof(float) * kCols));
  CUDA_CHECK(cudaMalloc(&dbeta, sizeof(float) * kCols));
  CUDA_CHECK(cudaMemcpy(dx, x.data(), sizeof(float) * count, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dgamma, gamma.data(), sizeof(float) * kCols, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dbeta, beta.data(), sizeof(float) * kCols, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dy, 0xff, sizeof(float) * count)); // NaN: unwritten shows

  const auto *x4 = reinterpret_cast<const float4 *>(dx);
  const auto *g4 = reinterpret_cast<const float4 *>(dgamma);
  const auto *b4 = reinterpret_cast<const float4 *>(dbeta);
  auto *y4 = reinterpret_cast<float4 *>(dy);
  const dim3 grid(ctas), block(kThreads);
  layernorm_rows<<<grid, block>>>(x4, g4, b4, y4, rows);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(y.data(), dy, sizeof(float) * count, cudaMemcpyDeviceToHost));

  // Tolerance: about 10x the float error of this arithmetic (rsqrtf, 1024-term sums).
  int wrong = 0;
  double worst = 0.0;
  for (int r = 0; r < rows; ++r) {
    const float *xr = &x[size_t(r) * kCols];
    double mean = 0.0, var = 0.0;
    for (int c = 0; c < kCols; ++c)
      mean += xr[c];
    mean /= kCols;
    for (int c = 0; c < kCols; ++c)
      var += (xr[c] - mean) * (xr[c] - mean);
    const double inv_std = 1.0 / std::sqrt(var / kCols + kEps);
    for (int c = 0; c < kCols; ++c) {
      const double want = (xr[c] - mean) * inv_std * gamma[c] + beta[c];
      const double err = std::fabs(y[size_t(r) * kCols + c] - want);
      worst = std::max(worst, err);
      if (!(err <= 1e-4 * std::max(1.0, std::fabs(want))) && wrong++ < 5)
        std::fprintf(stderr, "y[%d][%d] = %.9g, want %.9g\n", r, c, y[size_t(r) * kCols + c], want);
    }
  }

  if (reps > 0) {
#ifdef CUTRACE_TRACED_H
    // Launched directly (this branch is not rewritten): the original kernel, and the twin
    // recording into one buffer of our own, so the kernel alone is timed, without the per-launch
    // buffer set-up of the automatic launch path.
    auto original = [&] { layernorm_rows<<<grid, block>>>(x4, g4, b4, y4, rows); };
    cutrace::Recorder recorder(cutrace_map::layernorm_rows, grid, block);
    cutrace::Slots *slots = recorder.slots();
    auto twin = [&] {
      layernorm_rows_cutrace_traced<<<grid, block>>>(x4, g4, b4, y4, rows, slots);
    };
    original();
    twin();
    const std::vector<float> ms = interleaved_medians(reps, original, twin);
    CUDA_CHECK(cudaGetLastError());
    std::printf("layernorm: time build=traced original_ms=%.4f twin_ms=%.4f ratio=%.4f reps=%d\n",
                ms[0], ms[1], ms[1] / ms[0], reps);
#else
    auto original = [&] { layernorm_rows<<<grid, block>>>(x4, g4, b4, y4, rows); };
    original();
    const std::vector<float> ms = interleaved_medians(reps, original);
    CUDA_CHECK(cudaGetLastError());
    std::printf("layernorm: time build=stripped original_ms=%.4f reps=%d\n", ms[0], reps);
#endif
    std::printf("layernorm: %.0f GB/s (original)\n", 2.0 * count * sizeof(float) / (ms[0] * 1e6));
  }

  for (float *p : {dx, dy, dgamma, dbeta})
    CUDA_CHECK(cudaFree(p));
  std::printf("layernorm %d rows x %d, %d CTAs of %d threads: %s (max abs error %.3g)\n", rows,
              kCols, ctas, kThreads, wrong ? "FAIL" : "PASS", worst);
  return wrong ? 1 : 0;
}
