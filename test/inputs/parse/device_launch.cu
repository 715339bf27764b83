// A kernel launched from device code (dynamic parallelism, nvcc -rdc=true): Clang 19 rejects the
// launch, nvcc compiles it; the traced rewrite goes on and leaves the device-side launch as written.
#include <cutrace/trace.h>

__global__ void child(int *x) { x[threadIdx.x] = 1; }

__global__ void parent(int *x) {
  TRACE_RECORD("parent");
  if (threadIdx.x == 0)
    child<<<1, 32>>>(x);
}

void run(int *x) { parent<<<1, 1>>>(x); }
