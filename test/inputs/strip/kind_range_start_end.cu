// Annotation kind: TRACE_RANGE_START / TRACE_RANGE_END with 1, 2 and 3 arguments.
#include <cutrace/trace.h>
__global__ void staged(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  auto all = TRACE_RANGE_START("all");
  auto load = TRACE_RANGE_START("load", "mem");
  float v = 0.0f;
  if (i < n) {
    v = x[i];
  }
  TRACE_RANGE_END(load);
  auto math = TRACE_RANGE_START("math", "alu", i % 7);
  v = v * v + 1.0f;
  __syncwarp();
  TRACE_RANGE_END(math);
  if (i < n) {
    x[i] = v;
  }
  TRACE_RANGE_END(all);
}
