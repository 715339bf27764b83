// EXPECT: 6:26: payload of TRACE_RECORD has side effects (stripping would change behaviour)
#include <cutrace/trace.h>

__global__ void k(int *x) {
  int v = 0;
  TRACE_RECORD("assign", v = 3, "main");
  x[threadIdx.x] = v;
}
