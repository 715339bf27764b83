// cutrace-test-flags: -std=c++17
// Robust sum of a large float array: per-block cub::BlockReduce over finite values (non-finite
// values are counted, not summed), then a single block folds the partial sums with
// cooperative-groups warp reductions. The host side sorts a copy with thrust to compute a
// median for comparison.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/block/block_reduce.cuh>
#include <cuda_runtime.h>
#include <cutrace/trace.h>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>

#include <cmath>
#include <cstdio>
#include <vector>

namespace cg = cooperative_groups;

// Used by both the kernels and the host check.
__host__ __device__ inline bool usable(float v) { return isfinite(v) && fabsf(v) < 1.0e30f; }

struct SumStats {
  float sum;
  int nonfinite;
};

template <int BlockThreads, int ItemsPerThread>
__global__ void __launch_bounds__(BlockThreads)
    block_partial_sums(const float *__restrict__ in, float *__restrict__ partial,
                       int *__restrict__ nonfinite, int n) {
  using BlockReduce = cub::BlockReduce<float, BlockThreads>;
  using CountReduce = cub::BlockReduce<int, BlockThreads>;
  __shared__ union {
    typename BlockReduce::TempStorage sum;
    typename CountReduce::TempStorage count;
  } temp;

  TRACE_DAG("load", "reduce");
  const int tile = BlockThreads * ItemsPerThread;
  const int base = blockIdx.x * tile + threadIdx.x;
  TRACE_RECORD("config", BlockThreads * 100 + ItemsPerThread, "cfg");
  float local = 0.0f;
  int bad = 0;
  auto load = TRACE_RANGE_START("load", "main", ItemsPerThread);
#pragma unroll
  for (int item = 0; item < ItemsPerThread; ++item) {
    const int idx = base + item * BlockThreads;
    if (idx < n) {
      const float v = __ldg(in + idx);
      if (usable(v)) {
        local += v;
      } else {
        TRACE_RECORD("nonfinite", idx);
        ++bad;
      }
    }
  }
  TRACE_RANGE_END(load);

  auto reduce = TRACE_RANGE_START("reduce");
  const float block_sum = BlockReduce(temp.sum).Sum(local);
  __syncthreads();
  const int block_bad = CountReduce(temp.count).Sum(bad);
  TRACE_RANGE_END(reduce);

  if (threadIdx.x == 0) {
    TRACE_RANGE("publish", "main", block_bad);
    partial[blockIdx.x] = block_sum;
    if (block_bad != 0) {
      atomicAdd(nonfinite, block_bad);
    }
  }
}

// One block: each warp folds a strided slice of the partial sums, then warp 0 folds the warps.
__global__ void __launch_bounds__(1024) fold_partials(const float *__restrict__ partial, int count,
                                                      SumStats *__restrict__ out,
                                                      const int *__restrict__ nonfinite) {
  TRACE_GROUP("fold", 0);
  __shared__ float warp_sums[32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);

  float v = 0.0f;
  for (int i = threadIdx.x; i < count; i += blockDim.x) {
    v += __ldg(partial + i); TRACE_RECORD("partial", i, "loads");
  }
  TRACE_RECORD("count", count);
  const float warp_total = cg::reduce(warp, v, cg::plus<float>());
  if (warp.thread_rank() == 0) {
    warp_sums[warp.meta_group_rank()] = warp_total;
  }
  block.sync();

  if (warp.meta_group_rank() == 0) {
    const unsigned warps = warp.meta_group_size();
    const float w = warp.thread_rank() < warps ? warp_sums[warp.thread_rank()] : 0.0f;
    TRACE_RANGE("final_warp", "main",
                static_cast<int>(warps));
    const float total = cg::reduce(warp, w, cg::plus<float>());
    if (warp.thread_rank() == 0) {
      out->sum = total;
      out->nonfinite = *nonfinite;
    }
  }
}

template <int BlockThreads, int ItemsPerThread>
cudaError_t robust_sum(const float *in, int n, SumStats *out, cudaStream_t stream) {
  const int tile = BlockThreads * ItemsPerThread;
  const int blocks = (n + tile - 1) / tile;
  float *partial = nullptr;
  int *nonfinite = nullptr;
  cudaMallocAsync(&partial, blocks * sizeof(float), stream);
  cudaMallocAsync(&nonfinite, sizeof(int), stream);
  cudaMemsetAsync(nonfinite, 0, sizeof(int), stream);
  block_partial_sums<BlockThreads, ItemsPerThread>
      <<<blocks, BlockThreads, 0, stream>>>(in, partial, nonfinite, n);
  fold_partials<<<1, 1024, 0, stream>>>(partial, blocks, out, nonfinite);
  cudaFreeAsync(partial, stream);
  cudaFreeAsync(nonfinite, stream);
  return cudaGetLastError();
}

float host_median(const std::vector<float> &values) {
  thrust::device_vector<float> d(values.begin(), values.end());
  thrust::sort(d.begin(), d.end());
  thrust::host_vector<float> sorted = d;
  if (sorted.empty()) {
    return 0.0f;
  }
  return sorted[sorted.size() / 2];
}

int main() {
  const int n = 1 << 20;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) {
    h[i] = static_cast<float>(i % 1000) * 0.001f;
  }
  h[17] = NAN;
  h[4242] = INFINITY;

  int host_bad = 0;
  double host_sum = 0.0;
  for (float v : h) {
    if (usable(v)) {
      host_sum += v;
    } else {
      ++host_bad;
    }
  }

  float *d_in = nullptr;
  SumStats *d_out = nullptr;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, 3 * sizeof(SumStats));
  cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);

  cudaStream_t stream;
  cudaStreamCreate(&stream);
  robust_sum<128, 4>(d_in, n, d_out + 0, stream);
  robust_sum<256, 2>(d_in, n, d_out + 1, stream);
  robust_sum<512, 1>(d_in, n, d_out + 2, stream);
  cudaStreamSynchronize(stream);

  SumStats got[3];
  cudaMemcpy(got, d_out, sizeof(got), cudaMemcpyDeviceToHost);
  for (const SumStats &s : got) {
    std::printf("sum=%f (host %f) nonfinite=%d (host %d)\n", s.sum, host_sum, s.nonfinite,
                host_bad);
  }
  std::vector<float> finite;
  finite.reserve(h.size());
  for (float v : h) {
    if (usable(v)) {
      finite.push_back(v);
    }
  }
  std::printf("median=%f\n", host_median(finite));
  cudaStreamDestroy(stream);
  cudaFree(d_in);
  cudaFree(d_out);
  return 0;
}
