// Strip rule: line splices in a CRLF file (`\` CR LF, `\` spaces CR LF).
#include <cutrace/trace.h>

__global__ void k(int *x) {
  TRACE_RECORD("a"); // note \
  x[0] = 1;
  TRACE_RECORD("b"); // note \  
  x[1] = 1;
  x[2] = 2; \
  TRACE_RECORD("c");
#if 1
  x[3] = 3;
#endif
}
