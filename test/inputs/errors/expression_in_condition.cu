// EXPECT: 5:26: annotation must be a whole statement inside a function body
#include <cutrace/trace.h>

__global__ void k(int *x, int n) {
  for (int i = 0; i < n; TRACE_RECORD("step"), ++i) {
    x[i] = i;
  }
}
