// alpha records and calls beta, which the including file defines and which calls alpha back.
#pragma once
#include <cutrace/trace.h>
__device__ void beta(int *x, int n);
__device__ void alpha(int *x, int n) {
  TRACE_RANGE("alpha");
  if (n > 0)
    beta(x, n - 1);
}
