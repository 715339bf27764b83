// EXPECT: 5:26: payload of TRACE_RECORD has side effects: call to 'atomicAdd' may change program state (only constexpr, const/pure, CUDA's pure intrinsics and side-effect-free inline functions may be called; stripping would change behaviour)
#include <cutrace/trace.h>

__global__ void k(int *counter, int *out) {
  TRACE_RECORD("ticket", atomicAdd(counter, 1));
  out[threadIdx.x] = 0;
}
// CHECKED-BY: parse (strip is lexical; --verify-strip and --traced enforce this rule)
