// EXPECT: 6:8: error: a declaration of __device__ function 'twice' is written by a macro expansion, so the traced build cannot copy it into its twin 'twice_cutrace_traced'; write the declaration in the file, not through a macro
// The same for a __device__ function that a traced kernel reaches.
#include <cutrace/trace.h>

#define HELPER(name) __device__ int name(int v)
HELPER(twice) {
  TRACE_RECORD("h");
  return 2 * v;
}

__global__ void calls(int *x) {
  TRACE_RECORD("k");
  x[0] = twice(x[0]);
}
