// EXPECT: 6:5: annotation may not be the sole, unbraced body of 'while'
#include <cutrace/trace.h>

__global__ void k(volatile int *flag) {
  while (flag[0] == 0)
    TRACE_RANGE("spin");
  flag[1] = 1;
}
