// EXPECT: 6:17: error: a declaration of kernel 'scaled' is written by a macro expansion, so the traced build cannot copy it into its twin 'scaled_cutrace_traced'; write the declaration in the file, not through a macro
// The parameter list's parentheses come from a macro: the twin's parameter has nowhere to go.
#include <cutrace/trace.h>

#define PARAMS(type) (type *x)
__global__ void scaled PARAMS(int) {
  TRACE_RECORD("p");
  x[0] = 1;
}

void run(int *x) { scaled<<<1, 1>>>(x); }
