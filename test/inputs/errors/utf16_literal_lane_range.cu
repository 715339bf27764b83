// EXPECT: 5:23: lane of TRACE_RANGE must be a plain or u8 string literal (L, u and U literals are not accepted)
#include <cutrace/trace.h>

__global__ void k(int *x) {
  TRACE_RANGE("tile", u"copy", 1);
  x[threadIdx.x] = 1;
}
