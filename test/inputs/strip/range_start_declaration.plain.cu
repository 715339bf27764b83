// Strip rule: for TRACE_RANGE_START the annotation is the whole `auto tok = ...;` declaration.
__global__ void twophase(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  v = v * 2.0f + 1.0f;
  __syncthreads();
  if (i < n) {
    x[i] = v;
  }
}
