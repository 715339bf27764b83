// Annotation kind: TRACE_RECORD with 1, 2 and 3 arguments (name, payload, lane).
#include <cutrace/trace.h>
__global__ void marks(int *out, int n) {
  TRACE_RECORD("start");
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  TRACE_RECORD("index", i);
  if (i < n) {
    TRACE_RECORD("write", i ^ 5, "mem");
    out[i] = i ^ 5;
  }
  TRACE_RECORD("blk", static_cast<int>(blockIdx.x), "main");
}
