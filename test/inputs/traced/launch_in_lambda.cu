// Launches inside lambdas and with 2, 3 and 4 launch parameters are all rewritten; a launch in
// a macro body and a cudaLaunchKernel call go through the twin registry.
#include <cutrace/trace.h>

__global__ void work(float *x) {
  TRACE_RECORD("work", threadIdx.x);
  x[threadIdx.x] = 1.0f;
}

#define LAUNCH_WORK(x) work<<<1, 32>>>(x)

void run(float *x, cudaStream_t s) {
  auto go = [&](int blocks) { work<<<blocks, 32>>>(x); };
  go(1);
  work<<<1, 32, 0>>>(x);
  work<<<1, 32, 128, s>>>(x);
  LAUNCH_WORK(x);
  void *args[] = {&x};
  cudaLaunchKernel(reinterpret_cast<const void *>(&work), dim3(1), dim3(32), args, 0, s);
}
