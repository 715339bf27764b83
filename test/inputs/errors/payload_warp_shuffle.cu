// EXPECT: 7:25: payload of TRACE_RECORD has side effects: call to '__shfl_sync' may change program state (only constexpr, const/pure, CUDA's pure intrinsics and side-effect-free inline functions may be called; stripping would change behaviour)
#include <cutrace/trace.h>

// A warp collective is not a pure function of its arguments: it waits for the other lanes.
__global__ void k(int *out) {
  int lane_value = threadIdx.x * 3;
  TRACE_RECORD("lane0", __shfl_sync(0xffffffffu, lane_value, 0));
  out[threadIdx.x] = lane_value;
}
// CHECKED-BY: parse (strip is lexical; --verify-strip and --traced enforce this rule)
