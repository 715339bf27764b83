// EXPECT: 7:3: annotations are only allowed in __global__ and __device__ functions (found in host function 'f')
#include <cutrace/trace.h>

__global__ void k(int *x) { x[threadIdx.x] = 0; }

void f(int *x) {
  TRACE_RECORD("launch");
  k<<<1, 32>>>(x);
}
// CHECKED-BY: parse (strip is lexical; --verify-strip and --traced enforce this rule)
