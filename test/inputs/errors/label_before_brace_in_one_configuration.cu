// EXPECT: 9:3: annotation after a label may not end its block: stripping it would leave the label without a statement
#include <cutrace/trace.h>

__global__ void k(int *x) {
  switch (x[0]) {
  case 1:
    x[1] = 1;
  case 2:
  TRACE_RECORD("two");
  TRACE_RECORD("two again");
#ifdef A
    x[2] = 2;
#endif
  }
}
