// EXPECT: 8:24: payload of TRACE_RECORD has side effects: call to 'next_tile' may change program state ('next_tile' is not defined in this file; only constexpr, const/pure, CUDA's pure intrinsics and side-effect-free inline functions may be called; stripping would change behaviour)
#include <cutrace/trace.h>

// Defined in another translation unit (-rdc): nothing here says what it does.
extern __device__ int next_tile(int *queue);

__global__ void k(int *queue, int *out) {
  TRACE_RECORD("tile", next_tile(queue));
  out[threadIdx.x] = 0;
}
// CHECKED-BY: parse (strip is lexical; --verify-strip and --traced enforce this rule)
