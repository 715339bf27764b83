// EXPECT: 5:15: name of TRACE_GROUP must be a string literal
#include <cutrace/trace.h>

__global__ void k(int *x, const char *group_name) {
  TRACE_GROUP(group_name, 0);
  x[threadIdx.x] = 0;
}
