// EXPECT: 6:27: lead of TRACE_GROUP has side effects (stripping would change behaviour)
#include <cutrace/trace.h>

__global__ void k(int *x) {
  int lead = 0;
  TRACE_GROUP("producer", lead++);
  x[threadIdx.x] = lead;
}
