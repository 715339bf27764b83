// The group declared in the kernel; the marker in a function called in the loop.
#include <cutrace/trace.h>

INLINE void step(float *out, int t) {
  MARKER;
  out[t] += 1.0f;
}

__global__ void looped(float *out, int tiles) {
  TRACE_GROUP("stepper", 0);
#pragma unroll 1
  for (int t = 0; t < tiles; ++t)
    step(out, t);
}
