// EXPECT: 7:3: annotation may not be produced by the expansion of macro 'MARK'
#include <cutrace/trace.h>

#define MARK(kind) TRACE_##kind

__global__ void k(int *x) {
  MARK(RECORD)("a");
  x[0] = 1;
}
