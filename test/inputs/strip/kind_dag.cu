// Annotation kind: TRACE_DAG (declaration only), with the ranges it connects.
#include <cutrace/trace.h>
__global__ void handoff(const float *in, float *out) {
  TRACE_DAG("arrive", "wait");
  TRACE_DAG("arrive",
            "consume");
  __shared__ float stage[64];
  if (threadIdx.x < 64) {
    TRACE_RANGE("arrive", "producer");
    stage[threadIdx.x] = in[threadIdx.x];
  }
  auto wait = TRACE_RANGE_START("wait", "sync");
  __syncthreads();
  TRACE_RANGE_END(wait);
  if (threadIdx.x >= 64 && threadIdx.x < 128) {
    TRACE_RANGE("consume", "consumer");
    out[threadIdx.x - 64] = stage[threadIdx.x - 64] + 1.0f;
  }
}
