// EXPECT: 8:3: annotation may not be produced by the expansion of macro 'REC2'
#include <cutrace/trace.h>

#define REC TRACE_RECORD
#define REC2 REC

__global__ void k(int *x) {
  REC2("a");
  x[0] = 1;
}
