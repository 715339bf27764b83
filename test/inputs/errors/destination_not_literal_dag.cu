// EXPECT: 5:23: destination of TRACE_DAG must be a string literal
#include <cutrace/trace.h>

__global__ void k(int *x, const char *to) {
  TRACE_DAG("arrive", to);
  x[threadIdx.x] = 0;
}
