// EXPECT: ok
#include <cutrace/trace.h>

// Calls a payload, lead or condition may make (docs/annotations.md, "Side effects").
__host__ __device__ constexpr int tile_of(int v) { return v / 16; }
// Recursive, but called with a constant argument: folded at compile time.
__host__ __device__ constexpr int log2_of(int n) { return n <= 1 ? 0 : 1 + log2_of(n / 2); }
__device__ __attribute__((const)) int mix(int v) { return v * 0x9e3779b1; }
__device__ __attribute__((pure)) int first_of(const int *p) { return p[0]; }

// Inline helpers whose bodies write only their own locals, and call only what is allowed here.
__device__ __forceinline__ int clamp_tile(int v, int n) {
  int r = v;
  if (r >= n)
    r = n - 1;
  for (int i = 0; i < 2; ++i)
    r = r < 0 ? 0 : r;
  return r;
}
__device__ inline int lane_of(int t) { return clamp_tile(t & 31, 32) + __popc(t >> 5) * 0; }
template <class T> __device__ inline T sum2(T v) {
  T parts[2];
  parts[0] = v;
  parts[1] = v;
  return parts[0] + parts[1];
}
struct Extent {
  int lo, hi;
  __device__ Extent(int a, int b) : lo(a) { hi = b; }
  __device__ int width() const { return hi - lo; }
};

__global__ void k(const int *in, int *out, int n) {
  TRACE_GROUP("p", clamp_tile(n, 32));
  TRACE_RECORD("constexpr", tile_of(n));
  TRACE_RECORD("folded", log2_of(64));
  TRACE_RECORD("const", mix(n));
  TRACE_RECORD("pure", first_of(in));
  TRACE_RECORD("builtin", __builtin_abs(n));
  TRACE_RECORD("inline", lane_of(threadIdx.x));
  TRACE_RECORD("template", sum2(n));
  TRACE_RECORD("constructed", Extent(0, n).width());
  TRACE_RECORD_IF(clamp_tile(n, 8) == 7, "clamped", n);
  out[threadIdx.x] = in[threadIdx.x];
}
