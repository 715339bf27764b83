// Overloaded kernels: each overload has its own twin, decode map and launch routing.
#include <cutrace/trace.h>

__global__ void fill(int *x) {
  TRACE_RECORD("int");
  x[threadIdx.x] = 1;
}

__global__ void fill(float *x) {
  TRACE_RECORD("float");
  x[threadIdx.x] = 1.0f;
}

__global__ void fill(float *x, float v) {
  TRACE_RANGE("float_value");
  x[threadIdx.x] = v;
}

// Overloads defined in another file: each launch goes through the registry, cast to the overload
// it resolves to, whose twin that file registers.
__global__ void external(int *x);
__global__ void external(float *x, float v = 1.0f);

void run(int *a, float *b, cudaStream_t s) {
  external<<<1, 32>>>(a);
  external<<<1, 32, 0, s>>>(b);
  fill<<<1, 32>>>(a);
  fill<<<1, 32, 0, s>>>(b);
  fill<<<1, 32>>>(b, 2.0f);
  void *args[] = {&b};
  cudaLaunchKernel((const void *)static_cast<void (*)(float *)>(fill), dim3(1), dim3(32), args, 0,
                   s);
}
