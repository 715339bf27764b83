// ARGS: --cuda-gpu-arch=sm_90a
// A kernel whose body is compiled only for the arch-specific target (CUTLASS 3 guards its Hopper
// kernels with `#if defined(__CUDA_ARCH_FEAT_SM90_ALL)`): the device pass for sm_90a sees its
// group, its markers and its call, and the traced build records them.
#include <cutrace/trace.h>

__device__ __forceinline__ int tile_of(int k) {
  TRACE_RANGE("tile", "main", k);
  return k * 2;
}

__global__ void hopper_only(int *out, int k_tiles) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  TRACE_GROUP("hopper", 0);
  int acc = 0;
  for (int k = 0; k < k_tiles; ++k)
    acc += tile_of(k);
  out[threadIdx.x] = acc;
#else
  out[threadIdx.x] = -1;
#endif
}

void run(int *out) { hopper_only<<<1, 128>>>(out, 4); }
