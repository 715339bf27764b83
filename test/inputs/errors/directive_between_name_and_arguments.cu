// EXPECT: 5:3: preprocessor directive between TRACE_RECORD and its '(': an annotation's name and arguments cannot depend on #if (write one annotation in each branch)
#include <cutrace/trace.h>

__global__ void pick(int *x) {
  TRACE_RECORD
#ifdef WIDE
  ("wide");
#else
  ("narrow");
#endif
  x[0] = 1;
}
