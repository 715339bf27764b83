// EXPECT: 7:5: annotation may not be the sole, unbraced body of 'for'
#include <cutrace/trace.h>

__global__ void k(int *x) {
  int v[3] = {x[0], x[1], x[2]};
  for (int e : v)
    TRACE_RECORD("e", e);
  x[3] = v[0];
}
