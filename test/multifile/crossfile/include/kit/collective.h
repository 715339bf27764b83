// Header C: the collective whose members hold the ranges.
#pragma once
#include <cutrace/trace.h>

namespace kit {

template <int Stages>
struct Collective {
  __device__ void load(float const *src, float *tile, int k_tiles) {
    for (int k = 0; k < k_tiles; ++k) {
      TRACE_RANGE("load_tile", "tma", k);
      tile[k % Stages] = src[k];
    }
  }
  __device__ float mma(float const *tile, int k_tiles) {
    float acc = 0.f;
    for (int k = 0; k < k_tiles; ++k) {
      TRACE_RANGE("consume", "mma", k);
      acc += tile[k % Stages];
    }
    return acc;
  }
};

} // namespace kit
