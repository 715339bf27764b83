// EXPECT: 7:5: TRACE_SAMPLE_REST must be followed, in its block, by the statements it samples
// TRACE_SAMPLE_REST with nothing after it in its block samples nothing. // CHECKED-BY: parse
#include <cutrace/trace.h>
__global__ void k(int *p, int n) {
  if (n > 0) {
    TRACE_RECORD("x", n);
    TRACE_SAMPLE_REST(n > 1);
  }
  p[0] = n;
}
