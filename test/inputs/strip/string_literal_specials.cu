// Strip rule: string literal arguments containing `)`, `,`, `;`, `//`, `/*` and escapes do not
// end the annotation early.
#include <cutrace/trace.h>
__global__ void strings(int *x) {
  TRACE_RECORD("paren)");
  TRACE_RECORD("comma,", 1, "lane,2");
  TRACE_RANGE("semi;colon", "a // not a comment");
  int i = threadIdx.x;
  TRACE_RECORD("/* not a comment */", i);
  TRACE_RECORD("quote\")", ')', "\\"); x[i] = i;
  TRACE_RECORD("ends with backslash\\");
  x[i] += 2; TRACE_RECORD("tail // )");
  TRACE_RECORD(u8"prefixed)", i, "utf8");
}
