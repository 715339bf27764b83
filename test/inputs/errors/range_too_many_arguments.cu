// EXPECT: 5:3: TRACE_RANGE takes 1 to 3 arguments
#include <cutrace/trace.h>

__global__ void k(int *x, int n) {
  TRACE_RANGE("tile", "mma", n, 4);
  x[threadIdx.x] = n;
}
