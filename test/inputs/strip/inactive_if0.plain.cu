// Strip rule: annotations inside `#if 0` are stripped too (raw token stream, not one
// preprocessed view).
#include <cstdio>
#define VERBOSE 0

__global__ void count(const int *x, int *hits, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#if 0
  // an old debugging path nobody compiles
  printf("thread %d\n", i);
#endif
  if (i < n && x[i] > 0) {
    atomicAdd(hits, 1);
  }
#if VERBOSE
  if (i == 0) {
    printf("n=%d\n", n);
  }
#elif 0
  legacy_stuff(i);
#endif
}
