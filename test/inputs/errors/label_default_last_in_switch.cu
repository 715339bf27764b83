// EXPECT: 9:3: annotation after a label may not end its block: stripping it would leave the label without a statement
#include <cutrace/trace.h>

__global__ void k(int *x) {
  switch (x[0]) {
  case 1:
    x[1] = 1;
  default:
  TRACE_RECORD("other");
  }
}
