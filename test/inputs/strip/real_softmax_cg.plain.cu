// cutrace-test-flags: -std=c++17
// Row-wise softmax for attention scores. Each row is handled by one warp (short rows) or by a
// whole block (long rows); reductions use cooperative groups (cg::reduce with cg::greater and
// cg::plus). Inputs are read through the read-only cache (__ldg); a block-wide variant keeps
// the row in dynamic shared memory.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

#include <cfloat>
#include <cstdio>
#include <vector>

namespace cg = cooperative_groups;

struct SoftmaxArgs {
  const float *scores;
  float *probs;
  int rows;
  int cols;
  float inv_temperature;
};

// One warp per row; Vec consecutive columns per lane per step.
template <int Vec>
__global__ void __launch_bounds__(256) softmax_warp_per_row(SoftmaxArgs args) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int row = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
  if (row >= args.rows) {
    return;
  }
  const float *in = args.scores + static_cast<size_t>(row) * args.cols;
  float *out = args.probs + static_cast<size_t>(row) * args.cols;
  const int lane = warp.thread_rank();

  float row_max = -FLT_MAX;
  for (int c = lane * Vec; c < args.cols; c += 32 * Vec) {
#pragma unroll
    for (int v = 0; v < Vec; ++v) {
      if (c + v < args.cols) {
        row_max = fmaxf(row_max, __ldg(in + c + v) * args.inv_temperature);
      }
    }
  }
  row_max = cg::reduce(warp, row_max, cg::greater<float>());

  float denom = 0.0f;
  for (int c = lane * Vec; c < args.cols; c += 32 * Vec) {
#pragma unroll
    for (int v = 0; v < Vec; ++v) {
      if (c + v < args.cols) {
        denom += __expf(__ldg(in + c + v) * args.inv_temperature - row_max);
      }
    }
  }
  denom = cg::reduce(warp, denom, cg::plus<float>());
  const float inv = 1.0f / denom;

  for (int c = lane * Vec; c < args.cols; c += 32 * Vec) {
#pragma unroll
    for (int v = 0; v < Vec; ++v) {
      if (c + v < args.cols) {
        out[c + v] = __expf(__ldg(in + c + v) * args.inv_temperature - row_max) * inv;
      }
    }
  }
}

// One block per row; the scaled row lives in dynamic shared memory between the passes.
__global__ void __launch_bounds__(1024) softmax_block_per_row(SoftmaxArgs args) {
  extern __shared__ float row_buf[];
  __shared__ float partial[32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int row = blockIdx.x;
  const float *in = args.scores + static_cast<size_t>(row) * args.cols;
  float *out = args.probs + static_cast<size_t>(row) * args.cols;

  float local_max = -FLT_MAX;
  for (int c = threadIdx.x; c < args.cols; c += blockDim.x) {
    const float v = __ldg(in + c) * args.inv_temperature;
    row_buf[c] = v;
    local_max = fmaxf(local_max, v);
  }
  local_max = cg::reduce(warp, local_max, cg::greater<float>());
  if (warp.thread_rank() == 0) {
    partial[warp.meta_group_rank()] = local_max;
  }
  block.sync();
  float row_max = -FLT_MAX;
  for (unsigned w = 0; w < warp.meta_group_size(); ++w) {
    row_max = fmaxf(row_max, partial[w]);
  }
  block.sync();

  float local_sum = 0.0f;
  for (int c = threadIdx.x; c < args.cols; c += blockDim.x) {
    const float e = __expf(row_buf[c] - row_max);
    row_buf[c] = e;
    local_sum += e;
  }
  local_sum = cg::reduce(warp, local_sum, cg::plus<float>());
  if (warp.thread_rank() == 0) {
    partial[warp.meta_group_rank()] = local_sum;
  }
  block.sync();
  float denom = 0.0f;
  for (unsigned w = 0; w < warp.meta_group_size(); ++w) {
    denom += partial[w];
  }
  const float inv = 1.0f / denom;

  for (int c = threadIdx.x; c < args.cols; c += blockDim.x) {
    out[c] = row_buf[c] * inv;
  }
}

cudaError_t softmax(const SoftmaxArgs &args, cudaStream_t stream) {
  if (args.cols <= 1024) {
    const int rows_per_block = 256 / 32;
    const int blocks = (args.rows + rows_per_block - 1) / rows_per_block;
    if (args.cols % 4 == 0) {
      softmax_warp_per_row<4><<<blocks, 256, 0, stream>>>(args);
    } else {
      softmax_warp_per_row<1><<<blocks, 256, 0, stream>>>(args);
    }
  } else {
    const size_t smem = static_cast<size_t>(args.cols) * sizeof(float);
    softmax_block_per_row<<<args.rows, 1024, smem, stream>>>(args);
  }
  return cudaGetLastError();
}

int main() {
  const int rows = 64;
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaError_t err = cudaSuccess;
  auto run = [&](int cols) {
    std::vector<float> h(static_cast<size_t>(rows) * cols);
    for (size_t i = 0; i < h.size(); ++i) {
      h[i] = static_cast<float>(i % 17) * 0.5f;
    }
    float *scores = nullptr;
    float *probs = nullptr;
    cudaMalloc(&scores, h.size() * sizeof(float));
    cudaMalloc(&probs, h.size() * sizeof(float));
    cudaMemcpyAsync(scores, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice, stream);
    const SoftmaxArgs args{scores, probs, rows, cols, 1.0f / 8.0f};
    if (err == cudaSuccess) {
      err = softmax(args, stream);
    }
    std::vector<float> p(h.size());
    cudaMemcpyAsync(p.data(), probs, p.size() * sizeof(float), cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    double total = 0.0;
    for (int c = 0; c < cols; ++c) {
      total += p[c];
    }
    std::printf("cols=%d row0 sum=%f\n", cols, total);
    cudaFree(scores);
    cudaFree(probs);
  };
  run(128);
  run(130);
  run(4096);
  std::printf("%s\n", cudaGetErrorString(err));
  cudaStreamDestroy(stream);
  return err == cudaSuccess ? 0 : 1;
}
