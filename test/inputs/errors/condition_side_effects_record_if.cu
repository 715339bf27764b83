// EXPECT: 6:19: condition of TRACE_RECORD_IF has side effects (stripping would change behaviour)
#include <cutrace/trace.h>

__global__ void k(int *x) {
  int n = 0;
  TRACE_RECORD_IF(n++ < 3, "sampled", n);
  x[threadIdx.x] = n;
}
