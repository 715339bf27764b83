#include <cutrace/trace.h>

__global__ void fill(int *out, int n) {
  TRACE_GROUP("fill", 0);
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    TRACE_RECORD("i", i);
    out[i] = i;
  }
}

void launch_fill(int *out, int n) { fill<<<1, 128>>>(out, n); }
