// EXPECT: 5:3: annotations in __host__ __device__ functions are not supported (found in 'twice'); make it a __device__ function
#include <cutrace/trace.h>

__host__ __device__ int twice(int v) {
  TRACE_RECORD("twice", v);
  return v * 2;
}

__global__ void k(int *x) { x[threadIdx.x] = twice(x[threadIdx.x]); }
// CHECKED-BY: parse (strip is lexical; --verify-strip and --traced enforce this rule)
