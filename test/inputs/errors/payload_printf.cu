// EXPECT: 6:27: payload of TRACE_RECORD has side effects: call to 'printf' may change program state (only constexpr, const/pure, CUDA's pure intrinsics and side-effect-free inline functions may be called; stripping would change behaviour)
#include <cstdio>
#include <cutrace/trace.h>

__global__ void k(int *out) {
  TRACE_RECORD("printed", printf("block %d\n", blockIdx.x));
  out[threadIdx.x] = 0;
}
// CHECKED-BY: parse (strip is lexical; --verify-strip and --traced enforce this rule)
