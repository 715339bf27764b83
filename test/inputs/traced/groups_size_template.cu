// EXPECT: 6:25: error: size of TRACE_GROUPS must be an integer constant expression that does not depend on a template parameter (the rows of a CTA are counted from it at the launch)
#include <cutrace/trace.h>

template <int Size>
__global__ void groups_size_template(float *out) {
  TRACE_GROUPS("slice", Size);
  TRACE_RECORD("x");
  out[threadIdx.x] = 1.0f;
}

template __global__ void groups_size_template<64>(float *);
