// EXPECT: 7:3: annotation may not be produced by the expansion of macro 'TIMED'
#include <cutrace/trace.h>

#define TIMED(name) TRACE_RANGE(name, "timed")

__global__ void k(int *x) {
  TIMED("body");
  x[threadIdx.x] = 0;
}
