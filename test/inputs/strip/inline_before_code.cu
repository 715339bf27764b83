// Strip rule: an annotation followed by code on its line goes with the whitespace after it;
// the code then starts at the annotation's column.
#include <cutrace/trace.h>
__global__ void square(float *x, int n) {
  TRACE_RANGE("square"); int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    TRACE_RECORD("load", i);   float v = x[i];
    TRACE_RECORD("store");	x[i] = v * v;
  }
  if (i == 0) { TRACE_RECORD("first"); x[0] += 1.0f; }
}
