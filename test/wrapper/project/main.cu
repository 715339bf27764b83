#include "kernels.h"
#include <cstdio>
#include <cuda_runtime.h>

int main() {
  const int rows = 256, cols = 64;
  float *in = nullptr, *out = nullptr;
  if (cudaMalloc(&in, rows * cols * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&out, rows * sizeof(float)) != cudaSuccess) {
    std::printf("no GPU\n");
    return 0;
  }
  row_sums(in, out, rows, cols);
#ifdef CUTRACE_TRACED
  std::printf("traced build\n");
#endif
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
