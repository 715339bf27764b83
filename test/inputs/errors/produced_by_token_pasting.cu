// EXPECT: 7:3: annotation may not be produced by the expansion of macro 'CAT'
#include <cutrace/trace.h>

#define CAT(a, b) a##b

__global__ void k(int *x) {
  CAT(TRACE_, RECORD)("a");
  x[0] = 1;
}
