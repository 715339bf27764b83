// Strip rule: a CRLF file stays CRLF (this file uses \r\n line endings).
#include <cutrace/trace.h>
__global__ void crlf_kernel(float *x, int n) {
  TRACE_RANGE("crlf");
  int i = blockIdx.x * blockDim.x + threadIdx.x; TRACE_RECORD("i", i);
  if (i < n) {
    TRACE_RECORD("multi",
                 i);
    x[i] += 1.0f;
    TRACE_RECORD("before"); x[i] *= 2.0f;
    auto tok = TRACE_RANGE_START("tok"); // comment
    TRACE_RANGE_END(tok);
  }
}
