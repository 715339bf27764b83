// Strip rule: annotation alone on its line followed by a // comment: the whole line goes.
#include <cutrace/trace.h> // annotations
__global__ void add(const int *a, const int *b, int *c, int n) {
  TRACE_RANGE("add", "main"); // whole kernel
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) {
    TRACE_RECORD("out_of_bounds", i);   // note: TRACE_RECORD("x") inside the comment too
    return;
  }
  TRACE_RECORD("store", i);	// tab before the comment
  c[i] = a[i] + b[i]; // keep this comment: it follows code
}
