// EXPECT: 9:5: annotation may not be the sole, unbraced body of 'if'
#include <cutrace/trace.h>

__global__ void k(int *x) {
  if (x[0])
#ifdef A
    x[2] = 2;
#endif
    TRACE_RECORD("a");
  x[1] = 1;
}
