// EXPECT: 7:1: error: preprocessor directive inside TRACE_RECORD(...); an annotation's arguments cannot depend on #if (write one annotation in each branch)
// The traced build would paste the arguments, directives and all, into one expression.
#include <cutrace/trace.h>

__global__ void pick(int *x) {
  TRACE_RECORD("d",
#ifdef WIDE
               x[0]
#else
               x[1]
#endif
  );
  x[0] = 1;
}
