// EXPECT: 5:13: source of TRACE_DAG must be a plain or u8 string literal (L, u and U literals are not accepted)
#include <cutrace/trace.h>

__global__ void k(int *x) {
  TRACE_DAG("a" U"b", "c");
  x[threadIdx.x] = 1;
}
