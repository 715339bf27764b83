// EXPECT: 6:25: error: size of TRACE_GROUPS must be an integer constant expression (the rows of a CTA are counted from it)
// The rows of a CTA are counted at the launch from the size: it must be a constant.
#include <cutrace/trace.h>

__global__ void groups_size_not_constant(float *out, int size) {
  TRACE_GROUPS("slice", size);
  TRACE_RECORD("x");
  out[threadIdx.x] = 1.0f;
}
