// EXPECT: 10:5: annotation may not be the sole, unbraced body of 'if'
#include <cutrace/trace.h>

__global__ void k(int *x) {
  if (x[0] == 1)
    x[1] = 1;
  else if (x[0] == 2)
    x[1] = 2;
  else if (x[0] == 3)
    TRACE_RECORD("three");
  x[2] = 2;
}
