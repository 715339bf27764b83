// EXPECT: 6:8: annotation may not be the sole, unbraced body of 'if'
#include <cutrace/trace.h>

__global__ void k(int *x) {
  if (x[0])
  lbl: TRACE_RECORD("a");
  x[1] = 1;
  if (x[2])
    goto lbl;
}
