// EXPECT: 5:29: error: first of TRACE_GROUPS is 16; it must be a multiple of 32 below 1024
#include <cutrace/trace.h>

__global__ void groups_first_not_multiple_of_32(float *out) {
  TRACE_GROUPS("slice", 32, 16);
  TRACE_RECORD("x");
  out[threadIdx.x] = 1.0f;
}
