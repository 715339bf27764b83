// Host code that differs between builds is guarded by CUTRACE_TRACED: the traced parse sees the
// guarded launch, the strip and verify parses see the other one.
#include <cutrace/trace.h>

__global__ void fill(float *x) {
  TRACE_GROUP("fill", 0);
  x[threadIdx.x] = 1.0f;
}

void run(float *x) {
#ifdef CUTRACE_TRACED
  fill<<<1, 32>>>(x);
  fill<<<2, 32>>>(x);
#else
  fill<<<1, 32>>>(x);
#endif
}
