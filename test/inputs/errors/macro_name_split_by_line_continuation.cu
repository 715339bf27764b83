// EXPECT: 5:3: annotation name TRACE_RECORD may not be split by a line continuation
#include <cutrace/trace.h>

__global__ void k(int *x) {
  TRACE_RE\
CORD("a");
  x[threadIdx.x] = 1;
}
