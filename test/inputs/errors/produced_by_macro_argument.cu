// EXPECT: 7:3: annotation may not be produced by the expansion of macro 'CALL'
#include <cutrace/trace.h>

#define CALL(f, arg) f(arg)

__global__ void k(int *x) {
  CALL(TRACE_RECORD, "a");
  x[0] = 1;
}
