// Strip rule: annotations at several block depths (function, loops, if/else, bare blocks).
#include <cutrace/trace.h>
__global__ void nested(float *x, int rows, int cols) {
  TRACE_GROUP("rows", 0);
  int r = blockIdx.x;
  if (r >= rows) {
    TRACE_RECORD("skip", r);
    return;
  }
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    TRACE_RANGE("col", "main", c);
    float v = x[r * cols + c];
    if (v > 0.0f) {
      TRACE_RECORD("positive");
      {
        TRACE_RANGE("halve");
        v = v * 0.5f;
      }
    } else {
      TRACE_RECORD("non_positive");
      int k = 0;
      while (k < 3) {
        TRACE_RECORD("k", k);
        v += 1.0f;
        ++k;
      }
      do {
        TRACE_RECORD("do_body");
        v -= 0.25f;
      } while (v > 10.0f);
    }
    x[r * cols + c] = v;
  }
}
