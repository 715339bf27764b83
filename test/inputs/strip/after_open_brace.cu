// Strip rule: annotation on the same line as the opening `{` of the kernel or a block.
#include <cutrace/trace.h>
__global__ void oneliner(int *x) { TRACE_RECORD("one"); x[threadIdx.x] = 1; }

__global__ void opener(int *x, int n) { TRACE_RANGE("opener");
  if (n > 0) {   TRACE_RECORD("positive", n);
    x[threadIdx.x] += n;
  }
}
