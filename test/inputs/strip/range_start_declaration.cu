// Strip rule: for TRACE_RANGE_START the annotation is the whole `auto tok = ...;` declaration.
#include <cutrace/trace.h>
__global__ void twophase(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  auto load = TRACE_RANGE_START("load");
  float v = i < n ? x[i] : 0.0f;
  TRACE_RANGE_END(load);
  const auto math = TRACE_RANGE_START("math", "alu", i);
  v = v * 2.0f + 1.0f;
  TRACE_RANGE_END(math);
  auto sync = TRACE_RANGE_START("sync", "main"); __syncthreads();
  if (i < n) {
    x[i] = v;
  }
  TRACE_RANGE_END(sync);
}
