// Annotation kind: TRACE_GROUP, including nested groups that shadow outer ones.
#include <cutrace/trace.h>
__global__ void producer_consumer(const float *in, float *out, int n) {
  TRACE_GROUP("block", 0);
  __shared__ float buf[128];
  int warp = threadIdx.x / 32;
  if (warp == 0) {
    TRACE_GROUP("producer", 0);
    for (int i = threadIdx.x; i < 128 && i < n; i += 32) {
      buf[i] = in[i];
    }
  }
  __syncthreads();
  if (warp == 1) {
    TRACE_GROUP("consumer", 32);
    for (int i = threadIdx.x - 32; i < 128 && i < n; i += 32) {
      TRACE_GROUP("consumer_inner", 32 + 1 * 0);
      out[i] = buf[i] * 0.5f;
    }
  }
}
