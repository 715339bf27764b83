// EXPECT: 5:3: annotations in __device__ functions are not supported yet; annotate the calling __global__ kernel around the call instead
#include <cutrace/trace.h>

__device__ int g(int v) {
  TRACE_RECORD("helper", v);
  return v * 2;
}

__global__ void k(int *x) { x[threadIdx.x] = g(x[threadIdx.x]); }
// CHECKED-BY: parse (strip is lexical; --verify-strip and --traced enforce this rule)
