// Strip rule: several kernels in one file, some annotated and some not; device helpers untouched.
__device__ float relu(float v) { return v > 0.0f ? v : 0.0f; }

__global__ void first(float *x) {
  x[threadIdx.x] = relu(x[threadIdx.x]);
}

__global__ void untouched(float *x) {
  x[threadIdx.x] *= 3.0f;
}

__global__ void second(float *x, float *y) {
  y[threadIdx.x] = relu(-x[threadIdx.x]);
}
