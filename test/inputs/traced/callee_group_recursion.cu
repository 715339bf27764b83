// EXPECT: 8:16: error: recursive call of 'walk': a __device__ function that reaches annotations cannot call itself, directly or through other functions (its twin takes the caller's group)
// A function declaring a group calls itself: refused, as every recursion through traced code.
#include <cutrace/trace.h>

__device__ int walk(int n) {
  TRACE_GROUP("walker", 0);
  if (n > 0)
    return 1 + walk(n - 1);
  return 0;
}

__global__ void recurse(int *out) { out[0] = walk(3); }
