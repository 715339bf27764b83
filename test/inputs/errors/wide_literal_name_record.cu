// EXPECT: 5:16: name of TRACE_RECORD must be a plain or u8 string literal (L, u and U literals are not accepted)
#include <cutrace/trace.h>

__global__ void k(int *x) {
  TRACE_RECORD(L"w");
  x[threadIdx.x] = 1;
}
