// EXPECT: 5:31: payload of TRACE_RANGE has side effects (stripping would change behaviour)
#include <cutrace/trace.h>

__global__ void k(int *x, int n) {
  TRACE_RANGE("loop", "main", n += 1);
  x[threadIdx.x] = n;
}
