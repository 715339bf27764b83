// EXPECT: 8:5: annotation may not be the sole, unbraced body of 'else'
#include <cutrace/trace.h>

__global__ void k(int *x, int n) {
  if (n > 0) {
    x[threadIdx.x] = n;
  } else
    TRACE_RECORD("non_positive");
}
