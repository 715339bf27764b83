// An annotated kernel template with an unannotated explicit specialization: a launch that runs the
// specialization keeps running it (it has no twin); the others reach the template's twin.
#include <cutrace/trace.h>

template <class T> __global__ void fill(T *x) {
  TRACE_RECORD("primary");
  x[threadIdx.x] = T(1);
}

template <> __global__ void fill<float>(float *x) { x[threadIdx.x] = 2.0f; }

void run(int *a, float *b) {
  fill<<<1, 32>>>(a);
  fill<<<1, 32>>>(b);
  fill<float><<<1, 32>>>(b);
}
