// EXPECT: 9:5: error: TRACE_RANGE_END of a token started before the statement TRACE_SAMPLE samples (line 7): the executions the condition leaves out would never end its range; end it after the statement, or start it inside
// The copy without markers would leave the range open.
#include <cutrace/trace.h>
__global__ void k(int *p, int n) {
  auto whole = TRACE_RANGE_START("whole");
  p[0] = n;
  TRACE_SAMPLE(n > 0);
  if (n > 1) {
    TRACE_RANGE_END(whole);
  }
}
