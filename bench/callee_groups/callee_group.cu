// The same kernel with the group declared in the function called in the loop.
#include <cutrace/trace.h>

INLINE void step(float *out, int t) {
  TRACE_GROUP("stepper", 0);
  MARKER;
  out[t] += 1.0f;
}

__global__ void looped(float *out, int tiles) {
#pragma unroll 1
  for (int t = 0; t < tiles; ++t)
    step(out, t);
}
