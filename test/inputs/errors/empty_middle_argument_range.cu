// EXPECT: 5:19: lane of TRACE_RANGE is empty
#include <cutrace/trace.h>

__global__ void k(int *x) {
  TRACE_RANGE("a",,1);
  x[threadIdx.x] = 1;
}
