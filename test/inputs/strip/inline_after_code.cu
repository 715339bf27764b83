// Strip rule: an annotation after code on its line goes with the whitespace before it.
#include <cutrace/trace.h>
__global__ void fill(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; TRACE_RECORD("index", i);
  int v = i * 3;	  TRACE_RANGE("fill", "main", v);
  if (i < n) {
    out[i] = v;     TRACE_RECORD("stored");
  }
  int w = v + 1; TRACE_RECORD("w", w); // comment after code survives
  if (i + 1 < n && w < 0) {
    out[i + 1] = w;TRACE_RECORD("no_space");
  }
}
