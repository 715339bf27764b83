// EXPECT: 13:32: error: this call reaches annotations (through 'halve'), but it is in a lambda that does not capture by reference, so the traced build cannot pass it the group; give the lambda a [&] default capture
// A kernel's twin passes its group to the twins it calls; a lambda capturing by copy cannot
// hold the group (it cannot be copied), so such a call is refused rather than left to fail in
// nvcc.
#include <cutrace/trace.h>

__device__ float halve(float v) {
  TRACE_RECORD("halve");
  return v * 0.5f;
}

__global__ void k(float *x) {
  auto f = [=](int i) { return halve(x[i]); };
  x[threadIdx.x] = f(threadIdx.x);
}
