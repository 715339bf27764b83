// Strip rule: TRACE_ inside comments is not an annotation and is kept.
// TRACE_RECORD("not me");
#include <cutrace/trace.h>
/* TRACE_RANGE("nor me"); */
__global__ void commented(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // TRACE_RECORD("still not me", i);
  TRACE_RECORD("me", i); // TRACE_RECORD("not me");
  /*
   * auto tok = TRACE_RANGE_START("a block comment");
   * TRACE_RANGE_END(tok);
   */
  if (i < n) { // TRACE_GROUP("g", 0);
    TRACE_RECORD("me too"); /* TRACE_DAG("x", "y"); */
    x[i] = 1.0f; /* TRACE_DAG("a", "b"); */
  }
}
