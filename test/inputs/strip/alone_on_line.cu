// Strip rule: an annotation alone on its line goes with its whole line and newline.
#include <cutrace/trace.h>
__global__ void scale(float *x, float a, int n) {
  TRACE_RANGE("scale");
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    TRACE_RECORD("in_bounds", i);
    x[i] *= a;
  }
  TRACE_RECORD("done");
}
