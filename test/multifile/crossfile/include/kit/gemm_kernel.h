// Header B: the kernel class; its operator() decides the warp-group roles.
#pragma once
#include <cutrace/trace.h>
#include "kit/collective.h"

namespace kit {

template <class Mainloop>
struct GemmKernel {
  struct Params {
    float const *src;
    float *out;
    int k_tiles;
  };
  __device__ void operator()(Params const &params, char *smem) {
#if defined(__CUDA_ARCH__) // device code only, as CUTLASS guards its kernels' bodies
    float *tile = reinterpret_cast<float *>(smem);
    Mainloop collective_mainloop;
    if (threadIdx.x < 128) {
      TRACE_GROUP("producer", 0);
      collective_mainloop.load(params.src, tile, params.k_tiles);
    } else {
      TRACE_GROUPS("consumer", 128, 128);
      params.out[blockIdx.x] = collective_mainloop.mma(tile, params.k_tiles);
    }
#endif
  }
};

} // namespace kit
