// EXPECT: 6:16: name of TRACE_RECORD must be a string literal
#include <cutrace/trace.h>

__global__ void k(int *x) {
  const char *name = "computed";
  TRACE_RECORD(name, 1);
  x[threadIdx.x] = 0;
}
