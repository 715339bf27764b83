// EXPECT: 11:5: annotation may not be the sole, unbraced body of 'for'
#include <cutrace/trace.h>

__global__ void k(int *x) {
  for (int i = 0; i < 4; i++)
#pragma unroll
#if 0
    x[i] = i;
#endif
#define UNUSED 1
    TRACE_RECORD("a", i);
  x[1] = 1;
}
