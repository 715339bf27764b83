// EXPECT: 6:28: lane of TRACE_RECORD must be a string literal
#include <cutrace/trace.h>

__device__ const char kLane[] = "mem";
__global__ void k(int *x, int n) {
  TRACE_RECORD("store", n, kLane);
  x[threadIdx.x] = n;
}
