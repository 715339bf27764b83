// Annotation kind: TRACE_RANGE_START / TRACE_RANGE_END with 1, 2 and 3 arguments.
__global__ void staged(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = 0.0f;
  if (i < n) {
    v = x[i];
  }
  v = v * v + 1.0f;
  __syncwarp();
  if (i < n) {
    x[i] = v;
  }
}
