// Strip rule: TRACE_ inside comments is not an annotation and is kept.
// TRACE_RECORD("not me");
/* TRACE_RANGE("nor me"); */
__global__ void commented(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // TRACE_RECORD("still not me", i);
  /*
   * auto tok = TRACE_RANGE_START("a block comment");
   * TRACE_RANGE_END(tok);
   */
  if (i < n) { // TRACE_GROUP("g", 0);
    x[i] = 1.0f; /* TRACE_DAG("a", "b"); */
  }
}
