// Stands for a third-party launch helper (CUTLASS and other libraries have one) that packs
// its own argument array for cudaLaunchKernel. Found on the -isystem path, it is a system header,
// so a traced build leaves it as it is: a kernel handed to it runs exactly as in the plain build,
// unrecorded, and the rewrite warns at the call.
#pragma once
#pragma GCC system_header

#include <cuda_runtime.h>

template <class Kernel, class... Args>
cudaError_t library_launch(Kernel kernel, dim3 grid, dim3 block, Args... args) {
  void *array[] = {&args...};
  return cudaLaunchKernel(reinterpret_cast<const void *>(kernel), grid, block, array, 0, 0);
}
