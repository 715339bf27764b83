// A group's name identifies its row: declared in the prologue and again inside the k-loop (the
// natural place, next to the loads it covers), it continues one row and one cursor, so every
// iteration's events are kept. Groups are constructed at the kernel's entry.
#include <cutrace/trace.h>

__global__ void loop_groups(const float *a, float *out, int k_tiles) {
  const int warp = threadIdx.x / 32;
  if (warp == 0) {
    TRACE_GROUP("producer", 0);
    TRACE_RECORD("prologue");
    for (int kt = 0; kt < k_tiles; ++kt) {
      if (threadIdx.x == 0) {
        TRACE_GROUP("producer", 0);
        TRACE_RANGE("tma_issue", "load", kt);
        out[kt] = a[kt];
      }
      TRACE_RECORD("issued", kt);
    }
  } else {
    for (int kt = 0; kt < k_tiles; ++kt) {
      TRACE_GROUP("consumer", 32);
      TRACE_RANGE("mma", "math", kt);
      out[k_tiles + kt] = a[kt] * 2.0f;
    }
  }
  TRACE_DAG("tma_issue", "mma");
}

int main() {
  float *a, *out;
  cudaMalloc(&a, 64 * sizeof(float));
  cudaMalloc(&out, 128 * sizeof(float));
  loop_groups<<<4, 64>>>(a, out, 64);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
