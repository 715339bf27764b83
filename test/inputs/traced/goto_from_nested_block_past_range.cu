// EXPECT: 10:3: error: TRACE_RANGE_IF would be jumped over by the goto at line 8: the traced build declares a scope object here, and a jump past a declaration into its scope does not compile; put the annotation and the code it measures in braces that the jump does not enter, or jump elsewhere
// The goto sits in a block nested before the range and its label in a block nested after it:
// the jump still enters the range's scope.
#include <cutrace/trace.h>

__global__ void nested_skip(int *x) {
  for (int i = 0; i < 4; ++i) {
    if (x[i]) goto late;
  }
  TRACE_RANGE_IF(x[0] > 1, "work");
  if (x[1]) {
  late:
    x[2] = 2;
  }
}
