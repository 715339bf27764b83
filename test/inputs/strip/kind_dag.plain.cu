// Annotation kind: TRACE_DAG (declaration only), with the ranges it connects.
__global__ void handoff(const float *in, float *out) {
  __shared__ float stage[64];
  if (threadIdx.x < 64) {
    stage[threadIdx.x] = in[threadIdx.x];
  }
  __syncthreads();
  if (threadIdx.x >= 64 && threadIdx.x < 128) {
    out[threadIdx.x - 64] = stage[threadIdx.x - 64] + 1.0f;
  }
}
