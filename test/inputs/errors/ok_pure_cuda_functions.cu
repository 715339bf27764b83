// EXPECT: ok
#include <cutrace/trace.h>

// CUDA's documented pure families (docs/annotations.md, "Side effects"): type casts, rounded
// conversions, math functions, integer intrinsics, read-only loads.
__global__ void k(const float *in, int *out, int n, float offset) {
  TRACE_RECORD("as_int", __float_as_int(offset));
  TRACE_RECORD("round_trip", __float_as_int(__int_as_float(n)));
  TRACE_RECORD("rounded", __float2int_rn(offset));
  TRACE_RECORD("max", __float_as_int(fmaxf(offset, 1.0f)) + max(n, 4));
  TRACE_RECORD("min", __float_as_int(fminf(offset, 1.0f)) + min(n, 4));
  TRACE_RECORD("bits", __popc(n) + __clz(n) + __ffs(n) + __brev(n));
  TRACE_RECORD("math", __float_as_int(sqrtf(offset) + __expf(offset) + __fmul_rn(offset, 2.0f)));
  TRACE_RECORD("loaded", __float_as_int(__ldg(in + threadIdx.x)));
  TRACE_RANGE("tile", "main", __float2int_rz(offset * 4.0f));
  TRACE_RECORD_IF(__float_as_int(offset) > 0, "positive", __float2int_rn(offset));
  TRACE_RANGE_IF(__popc(n) == 1, "power_of_two", "main", __ffs(n));
  out[threadIdx.x] = n;
}
