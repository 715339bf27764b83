// EXPECT: 11:31: payload of TRACE_RECORD has side effects: call to 'claim' may change program state ('claim' writes through a pointer or reference; only constexpr, const/pure, CUDA's pure intrinsics and side-effect-free inline functions may be called; stripping would change behaviour)
#include <cutrace/trace.h>

__device__ __forceinline__ int claim(int *slot, int v) {
  int old = *slot; // reading is fine
  *slot = v;       // writing through the pointer is not
  return old;
}

__global__ void k(int *slots, int *out) {
  TRACE_RECORD("claimed", 1 + claim(slots + blockIdx.x, 7));
  out[threadIdx.x] = 0;
}
// CHECKED-BY: parse (strip is lexical; --verify-strip and --traced enforce this rule)
