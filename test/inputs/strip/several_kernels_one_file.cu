// Strip rule: several kernels in one file, some annotated and some not; device helpers untouched.
#include <cutrace/trace.h>
__device__ float relu(float v) { return v > 0.0f ? v : 0.0f; }

__global__ void first(float *x) {
  TRACE_RANGE("first");
  x[threadIdx.x] = relu(x[threadIdx.x]);
}

__global__ void untouched(float *x) {
  x[threadIdx.x] *= 3.0f;
}

__global__ void second(float *x, float *y) {
  TRACE_GROUP("second", 0);
  TRACE_DAG("first", "second");
  y[threadIdx.x] = relu(-x[threadIdx.x]);
}
