// Strip rule: only the annotation's own line goes; blank lines around it stay.
#include <cutrace/trace.h>
__global__ void spaced(float *x) {
  int i = threadIdx.x;

  TRACE_RECORD("loaded_next");
  float v = x[i];

  TRACE_RANGE("rest");

  x[i] = v + 3.0f;

  TRACE_RECORD("last");
}
