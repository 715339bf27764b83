// Two-pass sum of an int array: each block reduces kItemsPerThread * kBlock items in shared
// memory and writes one partial sum; the host adds the partials and checks the total.
// The grid is rounded up to a whole number of waves, so the blocks past the end of the data
// return early, from inside the "block" range: their slice is closed at the return.
#include <cutrace/trace.h>

#include <cstdio>
#include <vector>

#include "../common/cuda_check.h"
#include "../common/timing.h"

constexpr int kBlock = 256;
constexpr int kItemsPerThread = 4;

__global__ void block_sum(const int *in, int n, int *partial) {
  TRACE_RANGE("block", "main", int(blockIdx.x));
  const int base = blockIdx.x * kBlock * kItemsPerThread;
  if (base >= n) {
    TRACE_RECORD("idle", int(blockIdx.x));
    return;
  }

  __shared__ int sums[kBlock];
  int sum = 0;
  {
    TRACE_RANGE("load", "mem");
    for (int i = 0; i < kItemsPerThread; ++i) {
      const int at = base + i * kBlock + threadIdx.x;
      if (at < n)
        sum += in[at];
    }
  }
  sums[threadIdx.x] = sum;
  __syncthreads();

  for (int stride = kBlock / 2; stride > 0; stride /= 2) {
    TRACE_RANGE("tree", "main", stride);
    if (threadIdx.x < stride)
      sums[threadIdx.x] += sums[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    partial[blockIdx.x] = sums[0];
}

int main(int argc, char **argv) {
  const int n = 100003;
  std::vector<int> in(n);
  long long want = 0;
  for (int i = 0; i < n; ++i) {
    in[i] = i % 17 - 8;
    want += in[i];
  }

  // Round the grid up to whole waves of 8 blocks: the last few blocks have no data.
  const int needed = (n + kBlock * kItemsPerThread - 1) / (kBlock * kItemsPerThread);
  const int blocks = (needed + 7) / 8 * 8;
  int *din = nullptr, *dpartial = nullptr;
  CUDA_CHECK(cudaMalloc(&din, sizeof(int) * n));
  CUDA_CHECK(cudaMalloc(&dpartial, sizeof(int) * blocks));
  CUDA_CHECK(cudaMemcpy(din, in.data(), sizeof(int) * n, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dpartial, 0, sizeof(int) * blocks));

  block_sum<<<blocks, kBlock>>>(din, n, dpartial);
  CUDA_CHECK(cudaGetLastError());
  std::vector<int> partial(blocks);
  CUDA_CHECK(cudaMemcpy(partial.data(), dpartial, sizeof(int) * blocks, cudaMemcpyDeviceToHost));
  long long got = 0;
  for (int p : partial)
    got += p;
  if (const int reps = repeat_count(argc, argv))
    std::printf("block_sum: median %.4f ms of %d launches\n",
                median_ms(reps, [&] { block_sum<<<blocks, kBlock>>>(din, n, dpartial); }), reps);
  CUDA_CHECK(cudaFree(din));
  CUDA_CHECK(cudaFree(dpartial));
  std::printf("reduction n=%d blocks=%d (%d idle): sum %lld, want %lld: %s\n", n, blocks,
              blocks - needed, got, want, got == want ? "PASS" : "FAIL");
  return got == want ? 0 : 1;
}
