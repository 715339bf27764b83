// A kernel that traps part-way: with CUTRACE_MAPPED=1 the events recorded before the trap must
// still reach the timeline (the rows stay open: no end header was written).
#include <cutrace/trace.h>

#include <cstdio>

__global__ void doomed(int *x, int steps, int fatal_cta, int fatal_step) {
  TRACE_RANGE("kernel");
  for (int i = 0; i < steps; ++i) {
    TRACE_RECORD("step", i);
    if (blockIdx.x == fatal_cta && i == fatal_step && threadIdx.x == 0)
      __trap();
    // Slow steps, so the other CTAs are still running when the trap hits.
    for (int spin = 0; spin < 2000; ++spin)
      x[blockIdx.x] += spin;
  }
}

int main() {
  int *x = nullptr;
  cudaMalloc(&x, 64 * sizeof(int));
  doomed<<<8, 32>>>(x, 100, 3, 10);
  const cudaError_t err = cudaDeviceSynchronize();
  std::printf("doomed: %s (expected: an illegal instruction / unspecified launch failure)\n",
              cudaGetErrorString(err));
  return 0;
}
