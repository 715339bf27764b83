// EXPECT: 5:25: error: size of TRACE_GROUPS is 48; it must be a multiple of 32 from 32 to 1024
#include <cutrace/trace.h>

__global__ void groups_size_not_multiple_of_32(float *out) {
  TRACE_GROUPS("slice", 48);
  TRACE_RECORD("x");
  out[threadIdx.x] = 1.0f;
}
