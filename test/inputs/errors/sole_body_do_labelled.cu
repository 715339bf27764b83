// EXPECT: 7:12: annotation may not be the sole, unbraced body of 'do'
#include <cutrace/trace.h>

__global__ void k(int *x) {
  int i = 0;
  do
    again: TRACE_RECORD("a", i);
  while (++i < x[0]);
  if (i < 0)
    goto again;
}
