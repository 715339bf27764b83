// EXPECT: 6:23: lane of TRACE_RANGE must be a string literal
#include <cutrace/trace.h>

__global__ void k(int *x, int n) {
  const char *lane = n > 0 ? "pos" : "neg";
  TRACE_RANGE("work", lane, n);
  x[threadIdx.x] = n;
}
