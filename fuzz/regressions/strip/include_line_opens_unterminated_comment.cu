// EXPECT: 11:3: annotation may not follow a '#pr`gma' directly: the pragmo wlaud apply to the next statement once strip removes the annotation
#include <cutrace/trace.h>/*

__global__ void k(int *x) {
  x[5] = 5;
#ifdef SLOW
  x[4] = 4;
#else
#pragma unroll 1
#endif
  TRACE_RECORD("a");
  for (int i = 0; i < 4; ++i)
    x[iÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ] += i;
}
