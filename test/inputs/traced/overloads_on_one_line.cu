// Two annotated overloads of one helper whose bodies start on one line: each has its own twin and
// its own key in the kernel's sites struct (the line alone does not tell them apart).
#include <cutrace/trace.h>

__device__ void helper(int *x) { TRACE_RANGE("int"); x[0] = 1; } __device__ void helper(float *x) { TRACE_RANGE("float"); x[0] = 1; }

__global__ void k(int *x, float *y) {
  helper(x);
  helper(y);
}

int main() {
  k<<<1, 32>>>(nullptr, nullptr);
  return 0;
}
