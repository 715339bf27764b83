// Strip rule: an annotation whose arguments span several lines goes with all its lines.
#include <cutrace/trace.h>
__global__ void saxpy(float a, const float *x, float *y, int n) {
  TRACE_GROUP(
      "whole_block",
      0);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  TRACE_RANGE("saxpy",
              "compute",
              i);
  if (i < n) {
    TRACE_RECORD(
        "element",
        i * 2 + 1,
        "compute"
    );
    y[i] = a * x[i] + y[i];
  }
  TRACE_RECORD("end",
               n);   // comment after a multi-line annotation
}
