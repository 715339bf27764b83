// EXPECT: 5:12: annotation must be a whole statement inside a function body
#include <cutrace/trace.h>

__global__ void k(int *x) {
  int y = (TRACE_RECORD("inside_expression"), 2);
  x[threadIdx.x] = y;
}
