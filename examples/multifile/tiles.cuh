// An annotated template kernel defined in a header: every file that includes this header and
// launches block_max<N> gets its own traced copy of the header in a traced build.
#pragma once

#include <cutrace/trace.h>

// out[b] = the largest of the Block values of x that block b covers (n a multiple of Block).
template <int Block> __global__ void block_max(const float *x, float *out, int n) {
  TRACE_GROUP("tile", 0);
  TRACE_RANGE("max", "main", Block);
  __shared__ float best[Block];
  const int i = blockIdx.x * Block + threadIdx.x;
  best[threadIdx.x] = i < n ? x[i] : -1e30f;
  __syncthreads();
  for (int stride = Block / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      best[threadIdx.x] = fmaxf(best[threadIdx.x], best[threadIdx.x + stride]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = best[0];
  TRACE_RECORD("tile_done", int(blockIdx.x));
}
