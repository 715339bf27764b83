// The annotated definitions of what declares.h declares.
#pragma once
#include <cutrace/trace.h>
#include "declares.h"
__device__ void leaf(int *x) {
  TRACE_RANGE("leaf");
  x[threadIdx.x] += 1;
}
__global__ void scale(int *x) {
  TRACE_RANGE("scale");
  x[threadIdx.x] *= 2;
}
