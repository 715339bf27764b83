// EXPECT: 5:9: the file may define TRACE_RECORD only as an empty macro: strip deletes its uses, so a definition that expands to code would change the program
#include <cutrace/trace.h>

#undef TRACE_RECORD
#define TRACE_RECORD(name) x[1] += 1

__global__ void k(int *x) {
  TRACE_RECORD("a");
  x[0] = 1;
}
