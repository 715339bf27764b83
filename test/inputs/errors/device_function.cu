// EXPECT: 5:3: TRACE_GROUP in a __device__ function: declare groups in the kernel; a helper's markers record into the row of the group its caller is in
#include <cutrace/trace.h>

__device__ int g(int v) {
  TRACE_GROUP("helper", 0);
  TRACE_RECORD("helper", v);
  return v * 2;
}

__global__ void k(int *x) { x[threadIdx.x] = g(x[threadIdx.x]); }
// CHECKED-BY: parse (strip is lexical; --verify-strip and --traced enforce this rule)
