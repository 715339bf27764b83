// EXPECT: 6:5: annotations in member functions are not supported (found in 'run'); call a free __device__ function from it
#include <cutrace/trace.h>

struct Stage {
  __device__ void run(int *x) {
    TRACE_RECORD("run");
    x[threadIdx.x] = 1;
  }
};

__global__ void k(int *x) { Stage().run(x); }
// CHECKED-BY: parse (strip is lexical; --verify-strip and --traced enforce this rule)
