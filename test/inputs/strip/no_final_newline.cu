// Strip rule: a file without a final newline stays without one.
#include <cutrace/trace.h>
__global__ void last_line(int *x) {
  TRACE_RECORD("only");
  x[threadIdx.x] = 7;
  TRACE_RECORD("last_annotation_before_closing_brace");
}