// cutrace-test-flags: -std=c++17
// Tensor-core GEMM (half in, float accumulate). One producer warp stages A and B tiles through
// shared memory with cuda::pipeline (memcpy_async); four consumer warps run wmma on each stage.
#include <cooperative_groups.h>
#include <cuda/pipeline>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cutrace/trace.h>
#include <mma.h>

#include <cstdio>
#include <vector>

// The pipeline's shared state is constructed by its first use (documented libcu++ pattern).
#pragma nv_diag_suppress static_var_with_dynamic_init

namespace cg = cooperative_groups;
using namespace nvcuda;

constexpr int kTileM = 64;
constexpr int kTileN = 64;
constexpr int kTileK = 32;
constexpr int kConsumerWarps = 4;
constexpr int kThreads = (kConsumerWarps + 1) * 32;

struct GemmShape {
  int m;
  int n;
  int k;
};

__host__ __device__ constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }

template <int Stages>
constexpr size_t gemm_smem_bytes() {
  return Stages * (kTileM * kTileK + kTileK * kTileN) * sizeof(half);
}

// Requires m % kTileM == 0, n % kTileN == 0, k % kTileK == 0 (checked on the host).
template <int Stages>
__global__ void __launch_bounds__(kThreads)
    gemm_wmma(const half *__restrict__ a, const half *__restrict__ b, float *__restrict__ c,
              GemmShape shape, float alpha) {
  TRACE_DAG("load", "mma");
  TRACE_DAG("mma", "epilogue");
  extern __shared__ __align__(128) unsigned char smem_raw[];
  half *a_tiles = reinterpret_cast<half *>(smem_raw);
  half *b_tiles = a_tiles + Stages * kTileM * kTileK;
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, Stages> state;

  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int tile_row = blockIdx.y * kTileM;
  const int tile_col = blockIdx.x * kTileN;
  const int k_tiles = shape.k / kTileK;
  TRACE_RECORD("k_tiles", k_tiles, "setup");

  auto block = cg::this_thread_block();
  const cuda::pipeline_role role =
      warp == kConsumerWarps ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer;
  auto pipe = cuda::make_pipeline(block, &state, role);

  if (warp == kConsumerWarps) {
    TRACE_GROUP("producer", kConsumerWarps * 32); // lane 0 of the producer warp writes
    for (int kt = 0; kt < k_tiles; ++kt) {
      const int stage = kt % Stages;
      TRACE_RANGE("load", "producer", kt);
      half *sa = a_tiles + stage * kTileM * kTileK;
      half *sb = b_tiles + stage * kTileK * kTileN;
      pipe.producer_acquire(); TRACE_RECORD("acquired", stage, "producer");
      for (int idx = lane; idx < kTileM * kTileK / 8; idx += 32) {
        const int r = idx / (kTileK / 8);
        const int col = (idx % (kTileK / 8)) * 8;
        const half *src = a + static_cast<size_t>(tile_row + r) * shape.k + kt * kTileK + col;
        cuda::memcpy_async(sa + r * kTileK + col, src, cuda::aligned_size_t<16>(16), pipe);
      }
      for (int idx = lane; idx < kTileK * kTileN / 8; idx += 32) {
        const int r = idx / (kTileN / 8);
        const int col = (idx % (kTileN / 8)) * 8;
        const half *src = b + static_cast<size_t>(kt * kTileK + r) * shape.n + tile_col + col;
        cuda::memcpy_async(sb + r * kTileN + col, src, cuda::aligned_size_t<16>(16), pipe);
      }
      pipe.producer_commit();
    }
    TRACE_RECORD("producer_done");
    return;
  }

  TRACE_GROUP("consumer", 0);
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[kTileN / 16];
#pragma unroll
  for (int j = 0; j < kTileN / 16; ++j) {
    wmma::fill_fragment(acc[j], 0.0f);
  }

  for (int kt = 0; kt < k_tiles; ++kt) {
    const int stage = kt % Stages;
    const half *sa = a_tiles + stage * kTileM * kTileK;
    const half *sb = b_tiles + stage * kTileK * kTileN;
    auto wait = TRACE_RANGE_START("wait", "consumer", kt);
    pipe.consumer_wait();
    TRACE_RANGE_END(wait);
    TRACE_RANGE("mma", "consumer", kt);
#pragma unroll
    for (int kk = 0; kk < kTileK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
      wmma::load_matrix_sync(fa, sa + warp * 16 * kTileK + kk, kTileK);
#pragma unroll
      for (int j = 0; j < kTileN / 16; ++j) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
        wmma::load_matrix_sync(fb, sb + kk * kTileN + j * 16, kTileN);
        wmma::mma_sync(acc[j], fa, fb, acc[j]);
      }
    }
    pipe.consumer_release();
  }

  const auto epilogue =
      TRACE_RANGE_START("epilogue", "consumer", warp);
  float *c_warp = c + static_cast<size_t>(tile_row + warp * 16) * shape.n + tile_col;
#pragma unroll
  for (int j = 0; j < kTileN / 16; ++j) {
#pragma unroll
    for (int e = 0; e < acc[j].num_elements; ++e) {
      acc[j].x[e] *= alpha;
    }
    wmma::store_matrix_sync(c_warp + j * 16, acc[j], shape.n, wmma::mem_row_major);
  }
  TRACE_RANGE_END(epilogue);
}

// Bias + ReLU epilogue on a 2-D grid of 2-D blocks.
template <typename T>
__global__ void bias_relu(T *c, const T *bias, int m, int n) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) {
    TRACE_RECORD("outside", row * n + col, "bounds");
    return;
  }
  TRACE_RANGE("bias_relu");
  const T v = c[static_cast<size_t>(row) * n + col] + bias[col];
  c[static_cast<size_t>(row) * n + col] = v > T(0) ? v : T(0);
}

template <int Stages>
cudaError_t launch_gemm(const half *a, const half *b, float *c, GemmShape shape, float alpha,
                        cudaStream_t stream) {
  if (shape.m % kTileM != 0 || shape.n % kTileN != 0 || shape.k % kTileK != 0) {
    return cudaErrorInvalidValue;
  }
  const dim3 grid(ceil_div(shape.n, kTileN), ceil_div(shape.m, kTileM));
  const dim3 block(kThreads);
  const size_t smem = gemm_smem_bytes<Stages>();
  cudaError_t err = cudaFuncSetAttribute(gemm_wmma<Stages>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(smem));
  if (err != cudaSuccess) {
    return err;
  }
  gemm_wmma<Stages><<<grid, block, smem, stream>>>(a, b, c, shape, alpha);
  return cudaGetLastError();
}

cudaError_t launch_epilogue(float *c, const float *bias, GemmShape shape, cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid(ceil_div(shape.n, 32), ceil_div(shape.m, 8));
  bias_relu<float><<<grid, block, 0, stream>>>(c, bias, shape.m, shape.n);
  return cudaGetLastError();
}

int main() {
  const GemmShape shape{256, 256, 512};
  std::vector<half> ha(static_cast<size_t>(shape.m) * shape.k, __float2half(0.5f));
  std::vector<half> hb(static_cast<size_t>(shape.k) * shape.n, __float2half(0.25f));
  std::vector<float> hbias(shape.n, -1.0f);
  half *a = nullptr;
  half *b = nullptr;
  float *c = nullptr;
  float *bias = nullptr;
  cudaMalloc(&a, ha.size() * sizeof(half));
  cudaMalloc(&b, hb.size() * sizeof(half));
  cudaMalloc(&c, static_cast<size_t>(shape.m) * shape.n * sizeof(float));
  cudaMalloc(&bias, hbias.size() * sizeof(float));
  cudaMemcpy(a, ha.data(), ha.size() * sizeof(half), cudaMemcpyHostToDevice);
  cudaMemcpy(b, hb.data(), hb.size() * sizeof(half), cudaMemcpyHostToDevice);
  cudaMemcpy(bias, hbias.data(), hbias.size() * sizeof(float), cudaMemcpyHostToDevice);

  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaError_t err = launch_gemm<2>(a, b, c, shape, 1.0f, stream);
  if (err == cudaSuccess) {
    err = launch_gemm<3>(a, b, c, shape, 0.5f, stream);
  }
  if (err == cudaSuccess) {
    err = launch_epilogue(c, bias, shape, stream);
  }
  cudaStreamSynchronize(stream);
  std::vector<float> hc(static_cast<size_t>(shape.m) * shape.n);
  cudaMemcpy(hc.data(), c, hc.size() * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("%s c[0]=%f (expect %f)\n", cudaGetErrorString(err), hc[0],
              0.5f * 0.25f * shape.k * 0.5f - 1.0f);
  cudaStreamDestroy(stream);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  cudaFree(bias);
  return err == cudaSuccess ? 0 : 1;
}
