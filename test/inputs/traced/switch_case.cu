// EXPECT: 14:5: error: TRACE_RANGE directly in a switch body would be jumped over by a later case label; put this case's statements in braces
// A range declared straight in a switch body, with a later case label, is diagnosed in traced
// mode (the label would jump over its initialisation); in braces it is fine.
#include <cutrace/trace.h>

__global__ void dispatch(int mode, float *x) {
  switch (mode) {
  case 0: {
    TRACE_RANGE("zero");
    x[0] = 0.0f;
    break;
  }
  case 1:
    TRACE_RANGE("one");
    x[0] = 1.0f;
    break;
  default:
    break;
  }
}
