// Annotation kind: TRACE_RANGE with 1, 2 and 3 arguments.
__global__ void tiles(const float *a, float *b, int tiles_n) {
  float acc = 0.0f;
  for (int t = 0; t < tiles_n; ++t) {
    acc += a[t * blockDim.x + threadIdx.x];
  }
  {
    b[threadIdx.x] = acc;
  }
}
