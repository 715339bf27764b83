// EXPECT: ok
#include <cutrace/trace.h>

__host__ __device__ constexpr int tile_of(int v) { return v / 16; }

__global__ void k(const int *in, int *out, int n) {
  TRACE_GROUP("lead_expr", 2 * 32 + 0);
  TRACE_RECORD("constexpr_call", tile_of(n));
  TRACE_RECORD("thread", threadIdx.x, "ids");
  TRACE_RANGE("block", "ids", blockIdx.x * 2);
  TRACE_RECORD("read_only", in[threadIdx.x] + n);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  TRACE_RECORD("cast", static_cast<int>(sizeof(int)) * i);
  if (i < n) {
    out[i] = in[i];
  }
}
