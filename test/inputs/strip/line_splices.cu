// Strip rule: a line splice (`\` at the end of a line) keeps the lines it joins: only the statement goes.
#include <cutrace/trace.h>

__global__ void k(int *x) {
  TRACE_RECORD("a"); // note \
  x[0] = 1;
  TRACE_RECORD("b");  // trailing spaces after the backslash still splice \  
  x[1] = 1;
  x[2] = 2; \
  TRACE_RECORD("c");
#if 1
  x[3] = 3;
#endif
  TRACE_RECORD("d", \
               x[4]);
  TRACE_RECORD("e"\
  );
  x[5] = 5;
}
