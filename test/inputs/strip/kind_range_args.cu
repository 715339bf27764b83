// Annotation kind: TRACE_RANGE with 1, 2 and 3 arguments.
#include <cutrace/trace.h>
__global__ void tiles(const float *a, float *b, int tiles_n) {
  TRACE_RANGE("kernel");
  float acc = 0.0f;
  for (int t = 0; t < tiles_n; ++t) {
    TRACE_RANGE("tile", "mma", t);
    acc += a[t * blockDim.x + threadIdx.x];
  }
  {
    TRACE_RANGE("store", "epilogue");
    b[threadIdx.x] = acc;
  }
}
