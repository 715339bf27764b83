// EXPECT: 7:3: error: TRACE_RANGE would be jumped over by the goto at line 6: the traced build declares a scope object here, and a jump past a declaration into its scope does not compile; put the annotation and the code it measures in braces that the jump does not enter, or jump elsewhere
// A forward goto past a TRACE_RANGE of the same block lands in the range's scope.
#include <cutrace/trace.h>

__global__ void skip_ahead(int *x) {
  if (x[0]) goto done;
  TRACE_RANGE("work");
  x[1] = 1;
done:
  x[2] = 2;
}
