// No annotation: cutrace-nvcc --cutrace-auto traces its kernels (test/wrapper/check_auto.sh).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void saxpy(float a, const float *x, float *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}

__global__ void fill(float *x, float v, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = v;
}

int main() {
  const int n = 1 << 20;
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  fill<<<n / 256, 256>>>(x, 1.0f, n);
  fill<<<n / 256, 256>>>(y, 2.0f, n);
  saxpy<<<132, 256>>>(3.0f, x, y, n);
  float first = 0;
  cudaMemcpy(&first, y, sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("y[0] = %g\n", first);
  return first == 5.0f ? 0 : 1;
}
