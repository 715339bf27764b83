// EXPECT: 5:3: TRACE_RECORD takes 1 to 3 arguments
#include <cutrace/trace.h>

__global__ void k(int *x, int n) {
  TRACE_RECORD("iter", n, "main", 7);
  x[threadIdx.x] = n;
}
