// EXPECT: 5:6: annotation may not be the sole, unbraced body of 'do'
#include <cutrace/trace.h>

__global__ void k(int *x) {
  do TRACE_RECORD("once"); while (false);
  x[threadIdx.x] = 0;
}
