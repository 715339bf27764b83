// EXPECT: 6:1: preprocessor directive inside TRACE_RECORD(...); an annotation's arguments cannot depend on #if (write one annotation in each branch)
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
