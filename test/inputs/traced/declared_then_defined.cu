// A kernel declared before it is defined: the default argument goes on the first declaration.
#include <cutrace/trace.h>

__global__ void later(int *out);
__global__ void noargs();

void run(int *out) {
  later<<<1, 32>>>(out);
  noargs<<<1, 1>>>();
}

__global__ void later(int *out) {
  TRACE_RECORD("later", threadIdx.x);
  out[threadIdx.x] = 1;
}

__global__ void noargs() { TRACE_RECORD("noargs"); }
