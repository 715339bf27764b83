// EXPECT: 6:8: error: a declaration of kernel 'scaled' is written by a macro expansion, so the traced build cannot copy it into its twin 'scaled_cutrace_traced'; write the declaration in the file, not through a macro
// A kernel whose signature a macro writes has no text to copy into a twin.
#include <cutrace/trace.h>

#define KERNEL(name) __global__ void name(int *x)
KERNEL(scaled) {
  TRACE_RECORD("m");
  x[0] = 1;
}

void run(int *x) { scaled<<<1, 1>>>(x); }
