// Strip rule: a TRACE_RANGE_START declaration spanning several lines goes with all of them;
// `const auto` too, and an END sharing a line with code.
#include <cutrace/trace.h>
__global__ void accumulate(const float *x, float *sum, int n) {
  const auto loop_tok =
      TRACE_RANGE_START("loop",
                        "main",
                        n);
  float acc = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    acc += x[i];
  }
  TRACE_RANGE_END(loop_tok);
  auto
      atomic_tok
      = TRACE_RANGE_START(
          "atomic");   // comment after
  if (acc != 0.0f) {
    atomicAdd(sum, acc); TRACE_RANGE_END(atomic_tok);
  }
}
