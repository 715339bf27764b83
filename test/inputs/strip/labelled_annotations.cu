// Strip rule: an annotation after a label that a statement follows: the label labels that one.
#include <cutrace/trace.h>

__global__ void k(int *x) {
  if (x[0])
    goto done;
  switch (x[1]) {
  case 1: TRACE_RECORD("one");
  case 2:
    TRACE_RECORD("two");
    x[2] = 2;
    break;
  default: TRACE_RECORD("other"); x[2] = 0;
  }
done: TRACE_RECORD("done");
  x[3] = 3;
}
