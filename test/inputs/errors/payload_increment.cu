// EXPECT: 6:25: payload of TRACE_RECORD has side effects (stripping would change behaviour)
#include <cutrace/trace.h>

__global__ void k(int *x, int n) {
  int i = 0;
  TRACE_RECORD("count", i++);
  x[threadIdx.x] = i + n;
}
