// EXPECT: 5:16: name of TRACE_RECORD is empty
#include <cutrace/trace.h>

__global__ void k(int *x) {
  TRACE_RECORD(,);
  x[threadIdx.x] = 1;
}
