// EXPECT: 5:31: annotation may not be the sole, unbraced body of 'for'
#include <cutrace/trace.h>

__global__ void k(int *x, int n) {
  for (int i = 0; i < n; ++i) TRACE_RECORD("iteration", i);
  x[threadIdx.x] = n;
}
