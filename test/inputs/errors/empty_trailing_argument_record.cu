// EXPECT: 5:20: payload of TRACE_RECORD is empty
#include <cutrace/trace.h>

__global__ void k(int *x) {
  TRACE_RECORD("a",);
  x[threadIdx.x] = 1;
}
