// EXPECT: 8:3: TRACE_SAMPLE samples a statement written by a macro expansion that also writes the code around it, which the traced build cannot copy; sample a statement written in the file
#include <cutrace/trace.h>

#define STEP_TWICE(x) x += 1; x *= 2

__global__ void k(int *out) {
  TRACE_SAMPLE(out[0] > 0);
  STEP_TWICE(out[1]);
  TRACE_RECORD("after");
}
// CHECKED-BY: parse (strip is lexical; --verify-strip and --traced enforce this rule)
