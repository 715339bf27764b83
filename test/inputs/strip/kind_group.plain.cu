// Annotation kind: TRACE_GROUP, including nested groups that shadow outer ones.
__global__ void producer_consumer(const float *in, float *out, int n) {
  __shared__ float buf[128];
  int warp = threadIdx.x / 32;
  if (warp == 0) {
    for (int i = threadIdx.x; i < 128 && i < n; i += 32) {
      buf[i] = in[i];
    }
  }
  __syncthreads();
  if (warp == 1) {
    for (int i = threadIdx.x - 32; i < 128 && i < n; i += 32) {
      out[i] = buf[i] * 0.5f;
    }
  }
}
