// EXPECT: 6:11: annotation may not be the sole, unbraced body of 'switch'
#include <cutrace/trace.h>

__global__ void k(int *x) {
  switch (x[0])
  case 1: TRACE_RECORD("one");
  x[1] = 1;
}
