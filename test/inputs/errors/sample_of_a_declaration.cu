// EXPECT: 7:3: TRACE_SAMPLE cannot sample a declaration: the traced build writes the statement twice, once in each branch of the condition, and the name would end with its branch; sample a block or a loop
// TRACE_SAMPLE samples the statement after it; a declaration written twice would scope its name
// to one branch. // CHECKED-BY: parse
#include <cutrace/trace.h>
__global__ void k(int *p, int n) {
  TRACE_SAMPLE(n > 0);
  int x = p[0];
  TRACE_RECORD("x", x);
}
