// EXPECT: 6:5: annotation may not be the sole, unbraced body of 'if'
#include <cutrace/trace.h>

__global__ void k(int *x, int n) {
  if (n > 0)
    TRACE_RECORD("positive", n);
  x[threadIdx.x] = n;
}
