// A lead that is not a constant expression is evaluated where the group is declared: from there
// on, that thread writes the group's row (every declaration of the name must name one thread).
#include <cutrace/trace.h>

__global__ void computed_lead(float *out, int leader) {
  TRACE_GROUP("leader", leader);
  TRACE_RANGE("work", "main", leader);
  out[threadIdx.x] = 1.0f;
}

int main() {
  float *out;
  cudaMalloc(&out, 64 * sizeof(float));
  computed_lead<<<1, 64>>>(out, 5);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
