// Strip rule: annotations in a templated kernel with several instantiations; host code untouched.
#include <cuda_runtime.h>
#include <cutrace/trace.h>

template <typename T, int Unroll>
__global__ void axpy(T a, const T *x, T *y, int n) {
  TRACE_GROUP("axpy", 0);
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * Unroll;
  TRACE_RECORD("unroll", Unroll, "cfg");
#pragma unroll
  for (int u = 0; u < Unroll; ++u) {
    TRACE_RANGE("u", "main", u);
    int i = base + u;
    if (i < n) {
      y[i] = a * x[i] + y[i];
    }
  }
}

void launch_all(float *xf, float *yf, double *xd, double *yd, int n, cudaStream_t s) {
  axpy<float, 1><<<(n + 255) / 256, 256, 0, s>>>(2.0f, xf, yf, n);
  axpy<float, 4><<<(n + 1023) / 1024, 256, 0, s>>>(2.0f, xf, yf, n);
  axpy<double, 2><<<(n + 511) / 512, 256, 0, s>>>(2.0, xd, yd, n);
}
