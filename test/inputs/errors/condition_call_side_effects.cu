// EXPECT: 7:19: condition of TRACE_RECORD_IF has side effects: call to 'take_sample' may change program state ('take_sample' calls 'atomicDec'; only constexpr, const/pure, CUDA's pure intrinsics and side-effect-free inline functions may be called; stripping would change behaviour)
#include <cutrace/trace.h>

__device__ inline bool take_sample(unsigned *budget) { return atomicDec(budget, 64u) > 0; }

__global__ void k(unsigned *budget, int *out) {
  TRACE_RECORD_IF(take_sample(budget), "sampled", blockIdx.x);
  out[threadIdx.x] = 0;
}
// CHECKED-BY: parse (strip is lexical; --verify-strip and --traced enforce this rule)
