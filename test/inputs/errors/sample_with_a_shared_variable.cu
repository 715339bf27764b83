// EXPECT: 7:5: TRACE_SAMPLE samples a statement that holds a __shared__ variable, which the second copy would allocate again (the traced build writes the statement twice)
// A __shared__ (or static) variable in the sampled statement would exist twice. // CHECKED-BY: parse
#include <cutrace/trace.h>
__global__ void k(int *p, int n) {
  TRACE_SAMPLE(n > 0);
  {
    __shared__ int staged[32];
    TRACE_RECORD("stage");
    staged[threadIdx.x % 32] = n;
    __syncthreads();
    p[threadIdx.x] = staged[(threadIdx.x + 1) % 32];
  }
}
