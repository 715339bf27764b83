// EXPECT: 10:3: annotation may not be produced by the expansion of macro 'CAT'
#include <cutrace/trace.h>

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define PREFIX TRACE_
#define KIND DAG

__global__ void k(int *x) {
  CAT(PREFIX, KIND)("a", "b");
  x[0] = 1;
}
