// EXPECT: 7:5: annotation may not be the sole, unbraced body of 'if'
#include <cutrace/trace.h>

template <int N>
__global__ void k(int *x) {
  if constexpr (N > 1)
    TRACE_RECORD("wide", N);
  x[0] = N;
}
template __global__ void k<2>(int *);
