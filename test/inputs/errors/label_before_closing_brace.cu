// EXPECT: 8:7: annotation after a label may not end its block: stripping it would leave the label without a statement
#include <cutrace/trace.h>

__global__ void k(int *x) {
  if (x[0])
    goto done;
  x[1] = 1;
done: TRACE_RECORD("done");
}
