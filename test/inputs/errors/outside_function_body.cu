// EXPECT: 4:22: annotation must be a whole statement inside a function body
#include <cutrace/trace.h>

int g_initialised = (TRACE_RECORD("at_namespace_scope"), 1);

__global__ void k(int *x) { x[threadIdx.x] = 1; }
