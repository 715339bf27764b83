// EXPECT: 9:26: payload of TRACE_RECORD has side effects: call to 'advance' may change program state ('advance' writes through a pointer or reference; only constexpr, const/pure, CUDA's pure intrinsics and side-effect-free inline functions may be called; stripping would change behaviour)
#include <cutrace/trace.h>

// constexpr does not mean pure: since C++14 a constexpr function may assign through a reference.
__host__ __device__ constexpr int advance(int &cursor) { return cursor += 4; }

__global__ void k(int *out) {
  int cursor = 0;
  TRACE_RECORD("cursor", advance(cursor));
  out[threadIdx.x] = cursor;
}
// CHECKED-BY: parse (strip is lexical; --verify-strip and --traced enforce this rule)
