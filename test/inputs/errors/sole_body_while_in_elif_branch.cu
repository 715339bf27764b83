// EXPECT: 12:5: annotation may not be the sole, unbraced body of 'while'
#include <cutrace/trace.h>

__global__ void k(int *x) {
  int i = 0;
  while (i < x[0])
#if defined(A)
    ++i;
#elif defined(B)
    i += 2;
#elif 1
    TRACE_RECORD("a");
#endif
  x[1] = i;
}
