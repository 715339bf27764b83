// EXPECT: 8:26: payload of TRACE_RECORD has side effects: call to 'pop_tile' may change program state ('pop_tile' calls 'atomicSub'; only constexpr, const/pure, CUDA's pure intrinsics and side-effect-free inline functions may be called; stripping would change behaviour)
#include <cutrace/trace.h>

__device__ inline int pop_tile(int *queue) { return atomicSub(queue, 1); }

// The payload rule is the same in a __device__ helper as in a kernel.
__device__ void consume(int *queue, float *tile) {
  TRACE_RECORD("popped", pop_tile(queue));
  tile[threadIdx.x] *= 2.0f;
}

__global__ void k(int *queue, float *tiles) { consume(queue, tiles + blockIdx.x * 128); }
// CHECKED-BY: parse (strip is lexical; --verify-strip and --traced enforce this rule)
