// EXPECT: 7:15: token 'tok' from TRACE_RANGE_START may only be used by TRACE_RANGE_END
#include <cutrace/trace.h>

__global__ void k(int *x) {
  auto tok = TRACE_RANGE_START("phase");
  x[threadIdx.x] = 0;
  auto copy = tok;
  TRACE_RANGE_END(copy);
}
