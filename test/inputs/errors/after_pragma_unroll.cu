// EXPECT: 6:3: annotation may not follow a '#pragma' directly: the pragma would apply to the next statement once strip removes the annotation
#include <cutrace/trace.h>

__global__ void k(int *x) {
#pragma unroll 1
  TRACE_RECORD("a");
  for (int i = 0; i < 4; ++i)
    x[i] += i;
}
