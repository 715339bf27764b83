// EXPECT: 7:3: annotation may not be produced by the expansion of macro 'MY_REC'
#include <cutrace/trace.h>

#define MY_REC TRACE_RECORD("x")

__global__ void k(int *x) {
  MY_REC;
  x[threadIdx.x] = 0;
}
