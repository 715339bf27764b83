// Stands for a library launcher that takes a kernel instance as a value (CUTLASS's
// `(void const *)&device_kernel<GemmKernel>` handed to cudaLaunchKernelExC): copied, since the
// instance it names reaches annotated code.
#pragma once
#include <cuda_runtime.h>
#include <tile/generic.h>

namespace tile {
template <class Op> cudaError_t run_op(Op op, int blocks, cudaStream_t stream) {
  void const *kernel = (void const *)&device_kernel<Op>;
  void *args[] = {&op};
  return cudaLaunchKernel(kernel, dim3(blocks), dim3(32), args, 0, stream);
}
} // namespace tile
