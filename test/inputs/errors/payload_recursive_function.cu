// EXPECT: 8:25: payload of TRACE_RECORD has side effects: call to 'depth_of' may change program state ('depth_of' is recursive; only constexpr, const/pure, CUDA's pure intrinsics and side-effect-free inline functions may be called; stripping would change behaviour)
#include <cutrace/trace.h>

// Side-effect free, but recursion is not analysed (mark it __attribute__((const)) instead).
__device__ int depth_of(int n) { return n <= 1 ? 0 : 1 + depth_of(n / 2); }

__global__ void k(int *out, int n) {
  TRACE_RECORD("depth", depth_of(n));
  out[threadIdx.x] = 0;
}
// CHECKED-BY: parse (strip is lexical; --verify-strip and --traced enforce this rule)
