// Strip rule: no final newline, last line is `}` preceded on its line by an annotation.
#include <cutrace/trace.h>
__global__ void last_line2(int *x) {
  x[threadIdx.x] = 8; TRACE_RECORD("end"); }