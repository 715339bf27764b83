// A program shaped as CUTLASS 3 builds one: the generic kernel (kit/device_kernel.h) runs the
// kernel class (kit/gemm_kernel.h), which calls the collective (kit/collective.h); the instance
// is taken as a value and launched through the CUDA launch API.
#include "kit/device_kernel.h"
#include "kit/gemm_kernel.h"
#include <cuda_runtime.h>

using Kernel = kit::GemmKernel<kit::Collective<2>>;

int main() {
  Kernel::Params params{nullptr, nullptr, 4};
  float *out = nullptr;
  cudaMalloc(&out, 8 * sizeof(float));
  params.out = out;
  void const *fn = (void const *)&kit::device_kernel<Kernel>;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(8);
  config.blockDim = dim3(256);
  config.dynamicSmemBytes = 2 * sizeof(float);
  void *args[] = {&params};
  cudaLaunchKernelExC(&config, fn, args);
  cudaDeviceSynchronize();
  cudaFree(out);
  return 0;
}
