// TRACE_GROUPS gives every slice of `size` threads its own row (32 = per warp, 128 = per
// warpgroup; `first` skips a producer warpgroup), composed with a per-CTA TRACE_GROUP row, an
// early exit, and predicated markers that record only when their condition holds.
#include <cutrace/trace.h>

constexpr int kWarpgroup = 128;

__global__ void __launch_bounds__(384) slice_groups(const float *in, float *out, int tiles) {
  const int wg = threadIdx.x / kWarpgroup;
  if (wg == 0) {
    TRACE_GROUP("producer", 0);
    for (int t = 0; t < tiles; ++t) {
      TRACE_RANGE("load", "copy", t);
      out[t] = in[t];
    }
    return;
  }
  TRACE_GROUPS("consumer", kWarpgroup, kWarpgroup);
  for (int t = wg - 1; t < tiles; t += 2) {
    TRACE_RANGE("compute", "math", t);
    out[tiles + t] = in[t] * 2.0f;
    TRACE_RECORD_IF(t % 8 == 0, "sampled", t);
  }
  {
    TRACE_GROUPS("warp", 32);
    const int row = threadIdx.x / 32;
    TRACE_RANGE_IF(row % 2 == 0, "even_warp_store", "store", row);
    out[2 * tiles + row] = 1.0f;
  }
  TRACE_DAG("load", "compute");
}

int main() {
  float *in, *out;
  cudaMalloc(&in, 64 * sizeof(float));
  cudaMalloc(&out, 256 * sizeof(float));
  slice_groups<<<2, 384>>>(in, out, 64);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
