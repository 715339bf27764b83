// Settles, on the GPU, how wgmma reads a shared-memory operand without swizzling: one warpgroup
// multiplies small f16 matrices (small integers, so every result is exact) packed as core matrices
// in two arrangements, with the descriptor's leading/stride byte offsets read both ways, and the
// exact stage layout and descriptors of hopper_pipeline.cu (pipeline_tiles.h) both ways. Prints
// which readings match a CPU reference; exits 0 when the pipeline's kLeadingIsK reading matches.
//
//   nvcc -std=c++17 -O2 -arch=sm_90a -Iexamples/common wgmma_probe.cu -o wgmma_probe
#include "../common/cuda_check.h"
#include "pipeline_tiles.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace {

constexpr int kProbeThreads = 128; // one warpgroup
constexpr int kMaxABytes = kTileABytes, kMaxBBytes = kTileBBytes;

struct Variant {
  const char *what;
  int n, k;                      // B is n x k, A is 64 x k
  bool pipeline;                 // the pipeline's stage layout and k-steps
  uint32_t row_stride, k_stride; // where core matrices sit (bytes), for the other variants
  uint32_t leading, stride;      // descriptor fields (bytes), for the other variants
  bool leading_is_k;             // for the pipeline variants
};

// d = A * B^T with A (64 x k) and B (n x k) given packed in `a_packed` / `b_packed` bytes.
__global__ void probe(const uint4 *a_packed, int a_bytes, const uint4 *b_packed, int b_bytes,
                      float *d, Variant v) {
  __shared__ alignas(128) uint4 a_smem[kMaxABytes / 16];
  __shared__ alignas(128) uint4 b_smem[kMaxBBytes / 16];
  for (int i = threadIdx.x; i < a_bytes / 16; i += blockDim.x)
    a_smem[i] = a_packed[i];
  for (int i = threadIdx.x; i < b_bytes / 16; i += blockDim.x)
    b_smem[i] = b_packed[i];
  hopper::fence_proxy_async_shared(); // thread writes, then async-proxy reads by wgmma
  __syncthreads();
  const uint32_t a = hopper::smem_address(a_smem), b = hopper::smem_address(b_smem);
  const int t = threadIdx.x;
  if (v.pipeline) {
    float acc[64] = {};
    hopper::wgmma_fence();
    for (int s = 0; s < kKSteps; ++s)
      hopper::wgmma_m64n128k16(acc, tile_descriptor(a, s, v.leading_is_k),
                               tile_descriptor(b, s, v.leading_is_k), true);
    hopper::wgmma_commit();
    hopper::wgmma_wait<0>();
    for (int i = 0; i < 64; ++i)
      d[hopper::fragment_row(t, i) * 128 + hopper::fragment_col(t, i)] = acc[i];
  } else {
    float acc[32] = {};
    hopper::wgmma_fence();
    hopper::wgmma_m64n64k16(acc, hopper::smem_descriptor(a, v.leading, v.stride),
                            hopper::smem_descriptor(b, v.leading, v.stride), true);
    hopper::wgmma_commit();
    hopper::wgmma_wait<0>();
    for (int i = 0; i < 32; ++i)
      d[hopper::fragment_row(t, i) * 64 + hopper::fragment_col(t, i)] = acc[i];
  }
}

float small_int(unsigned i, unsigned salt) {
  const unsigned h = (i + salt) * 2654435761u;
  return float(int((h >> 13) % 5u) - 2);
}

// Runs one variant; returns true when the GPU result equals the CPU reference exactly.
bool run(const Variant &v) {
  const int m = 64;
  std::vector<__half> a(m * v.k), b(v.n * v.k);
  for (int i = 0; i < m * v.k; ++i)
    a[i] = __float2half(small_int(i, 11));
  for (int i = 0; i < v.n * v.k; ++i)
    b[i] = __float2half(small_int(i, 977));
  std::vector<float> want(m * v.n, 0.0f);
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < v.n; ++c)
      for (int kk = 0; kk < v.k; ++kk)
        want[r * v.n + c] += __half2float(a[r * v.k + kk]) * __half2float(b[c * v.k + kk]);

  std::vector<__half> a_packed(a.size()), b_packed(b.size());
  if (v.pipeline) {
    a_packed = pack_tiles(a, m, v.k, m);
    b_packed = pack_tiles(b, v.n, v.k, v.n);
  } else {
    hopper::pack_core_matrices(a.data(), v.k, 0, m, 0, v.k, v.row_stride, v.k_stride,
                               a_packed.data());
    hopper::pack_core_matrices(b.data(), v.k, 0, v.n, 0, v.k, v.row_stride, v.k_stride,
                               b_packed.data());
  }
  const int a_bytes = int(a.size() * sizeof(__half)), b_bytes = int(b.size() * sizeof(__half));
  uint4 *da, *db;
  float *dd;
  CUDA_CHECK(cudaMalloc(&da, a_bytes));
  CUDA_CHECK(cudaMalloc(&db, b_bytes));
  CUDA_CHECK(cudaMalloc(&dd, sizeof(float) * want.size()));
  CUDA_CHECK(cudaMemcpy(da, a_packed.data(), a_bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, b_packed.data(), b_bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dd, 0xff, sizeof(float) * want.size())); // NaN: unwritten shows
  probe<<<1, kProbeThreads>>>(da, a_bytes, db, b_bytes, dd, v);
  CUDA_CHECK(cudaGetLastError());
  std::vector<float> got(want.size());
  CUDA_CHECK(cudaMemcpy(got.data(), dd, sizeof(float) * got.size(), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(da));
  CUDA_CHECK(cudaFree(db));
  CUDA_CHECK(cudaFree(dd));

  int wrong = 0;
  float worst = 0.0f;
  for (size_t i = 0; i < got.size(); ++i) {
    const float err = std::fabs(got[i] - want[i]);
    if (!(err == 0.0f)) {
      ++wrong;
      worst = std::isnan(err) ? err : std::max(worst, err);
    }
  }
  // Same values in other places: the operands were read right and the fragment mapping is off.
  std::vector<float> got_sorted = got, want_sorted = want;
  std::sort(got_sorted.begin(), got_sorted.end());
  std::sort(want_sorted.begin(), want_sorted.end());
  const bool same_values = got_sorted == want_sorted;
  std::printf("wgmma_probe: %-62s %s", v.what, wrong ? "MISMATCH" : "MATCH");
  if (wrong)
    std::printf(" (%d of %zu wrong, max error %g%s)", wrong, got.size(), double(worst),
                same_values ? ", same values elsewhere: fragment mapping" : "");
  std::printf("\n");
  return wrong == 0;
}

} // namespace

int main() {
  // 64 x 16 operands, 8 row groups x 2 K groups of core matrices, in two arrangements.
  const Variant variants[] = {
      {"m64n64k16, rows outer (K 128 B, rows 256 B): LBO=K SBO=rows", 64, 16, false, 256, 128, 128,
       256, false},
      {"m64n64k16, rows outer (K 128 B, rows 256 B): LBO=rows SBO=K", 64, 16, false, 256, 128, 256,
       128, false},
      {"m64n64k16, K outer (K 1024 B, rows 128 B): LBO=K SBO=rows", 64, 16, false, 128, 1024, 1024,
       128, false},
      {"m64n64k16, K outer (K 1024 B, rows 128 B): LBO=rows SBO=K", 64, 16, false, 128, 1024, 128,
       1024, false},
      {"pipeline stage, 4 x m64n128k16, kLeadingIsK=true", 128, kBlockK, true, 0, 0, 0, 0, true},
      {"pipeline stage, 4 x m64n128k16, kLeadingIsK=false", 128, kBlockK, true, 0, 0, 0, 0, false},
  };
  bool pipeline_ok = false;
  int matching = -1; // the HOPPER_LEADING_IS_K value whose pipeline reading matched
  for (const Variant &v : variants) {
    const bool ok = run(v);
    if (v.pipeline && ok && matching < 0)
      matching = v.leading_is_k ? 1 : 0;
    if (v.pipeline && v.leading_is_k == kLeadingIsK)
      pipeline_ok = ok;
  }
  std::printf("wgmma_probe: pipeline_tiles.h kLeadingIsK=%s is %s\n",
              kLeadingIsK ? "true" : "false",
              pipeline_ok ? "RIGHT" : "WRONG (flip it if the other reading matched)");
  if (matching >= 0)
    std::printf("wgmma_probe: matching HOPPER_LEADING_IS_K=%d\n", matching);
  else
    std::printf("wgmma_probe: matching HOPPER_LEADING_IS_K=none\n");
  return pipeline_ok ? 0 : 1;
}
