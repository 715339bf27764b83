// The device compilation decides the call graph: a kernel whose body only the device
// compilation sees (`#if defined(__CUDA_ARCH__)`) gets its twin, its markers and its call of the
// annotated helper routed, although the host pass saw every annotation.
#include <cutrace/trace.h>

__device__ float scaled(float v) {
  TRACE_RANGE("scale");
  return v * 2.0f;
}

__global__ void device_only_body(float *x) {
#if defined(__CUDA_ARCH__)
  TRACE_GROUP("worker", 0);
  x[threadIdx.x] = scaled(x[threadIdx.x]);
#endif
}

void run(float *x) { device_only_body<<<1, 32>>>(x); }
