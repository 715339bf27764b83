// EXPECT: 12:22: error: recursive call of 'walk': a __device__ function that reaches annotations cannot call itself, directly or through other functions (its twin takes the caller's group)
// Recursion through member functions that reach annotations is refused like recursion through
// free helpers: each call would need the group, and recursion keeps it in memory.
#include <cutrace/trace.h>

struct Tree {
  int depth;
  __device__ int walk(int n) const {
    TRACE_RECORD("node", n);
    if (n == 0)
      return 0;
    return 1 + this->walk(n - 1);
  }
};

__global__ void traverse(int *out) {
  Tree t{3};
  out[0] = t.walk(3);
}
