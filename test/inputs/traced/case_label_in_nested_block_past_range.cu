// EXPECT: 8:5: error: TRACE_RANGE would be jumped over by the case label at line 10: the traced build declares a scope object here, and a jump past a declaration into its scope does not compile; put the annotation and the code it measures in braces that the jump does not enter, or jump elsewhere
// A case label inside a block that follows the range (not directly in the switch body).
#include <cutrace/trace.h>

__global__ void duff(int *x, int n) {
  switch (n) {
  case 0: {
    TRACE_RANGE("zero");
    if (x[0]) {
    case 1:
      x[1] = 1;
    }
  }
  }
}
