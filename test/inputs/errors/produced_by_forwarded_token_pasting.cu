// EXPECT: 8:3: annotation may not be produced by the expansion of macro 'CAT'
#include <cutrace/trace.h>

#define CAT(a, b) CAT_(a, b)
#define CAT_(a, b) a ## b

__global__ void k(int *x) {
  CAT(T, RACE_RANGE)("r");
  x[0] = 1;
}
