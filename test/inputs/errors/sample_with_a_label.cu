// EXPECT: 8:3: TRACE_SAMPLE samples a statement that holds a label, which the second copy would define again (the traced build writes the statement twice)
// A label in the sampled statement would be defined in both copies. // CHECKED-BY: parse
#include <cutrace/trace.h>
__global__ void k(int *p, int n) {
  TRACE_SAMPLE(n > 0);
  for (int i = 0; i < n; ++i) {
    TRACE_RECORD("i", i);
  again:
    if (atomicAdd(p, -1) > 0)
      goto again;
  }
}
