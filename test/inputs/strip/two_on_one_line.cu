// Strip rule: two annotations on one line: alone -> the line goes; after code -> both go with
// their separating whitespace; before code -> both go with the whitespace after them.
#include <cutrace/trace.h>
__global__ void copy2(const int *in, int *out, int n) {
  TRACE_GROUP("copy", 0); TRACE_RANGE("copy2", "main");
  int i = blockIdx.x * blockDim.x + threadIdx.x; TRACE_RECORD("a", i); TRACE_RECORD("b");
  if (i < n) {
    TRACE_RECORD("c"); TRACE_RECORD("d", i, "lane"); int v = in[i];
    out[i] = v;
  }
}
