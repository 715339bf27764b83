// EXPECT: 8:14: error: recursive call of 'depth': a __device__ function that reaches annotations cannot call itself, directly or through other functions (its twin takes the caller's group)
#include <cutrace/trace.h>

__device__ int depth(int n) {
  TRACE_RECORD("level", n);
  if (n == 0)
    return 0;
  return 1 + depth(n - 1);
}

__global__ void recurse(int *out) {
  TRACE_RECORD("start");
  out[0] = depth(3);
}
