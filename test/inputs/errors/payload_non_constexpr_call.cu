// EXPECT: 7:26: payload of TRACE_RECORD has side effects: call to 'bump' may change program state ('bump' calls 'atomicAdd'; only constexpr, const/pure, CUDA's pure intrinsics and side-effect-free inline functions may be called; stripping would change behaviour)
#include <cutrace/trace.h>

__device__ int bump(int *counter) { return atomicAdd(counter, 1); }

__global__ void k(int *x) {
  TRACE_RECORD("ticket", bump(x));
  x[threadIdx.x + 1] = 0;
}
// CHECKED-BY: parse (strip is lexical; --verify-strip and --traced enforce this rule)
