// EXPECT: 5:13: source of TRACE_DAG must be a string literal
#include <cutrace/trace.h>

__global__ void k(int *x, const char *from) {
  TRACE_DAG(from, "wait");
  x[threadIdx.x] = 0;
}
