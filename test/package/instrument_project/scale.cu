// Kernels without annotations: traced only when the target asks for AUTO (test/package/check.sh).
__global__ void scale(float *x, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    x[i] *= a;
}

__global__ void skipped(float *x, int n) {
  if (threadIdx.x < n)
    x[threadIdx.x] = 0;
}

void launch_scale(float *x, int n) {
  scale<<<1, 128>>>(x, 2.0f, n);
  skipped<<<1, 128>>>(x, n);
}
