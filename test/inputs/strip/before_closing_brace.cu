// Strip rule: an annotation followed by `}` on its line: the `}` keeps its place.
#include <cutrace/trace.h>
__global__ void clamp(float *x, float lo, float hi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    if (v < lo) { v = lo; TRACE_RECORD("low"); }
    if (v > hi) { v = hi; TRACE_RECORD("high", i); }
    x[i] = v;
    TRACE_RECORD("clamped"); }
  for (int k = 0; k < 2; ++k) { TRACE_RECORD("k", k); }
}
