// An annotated kernel template with an explicit instantiation: the twin is instantiated too.
#include <cutrace/trace.h>

template <class T> __global__ void scale(T *x, T a) {
  TRACE_RECORD("scale");
  x[threadIdx.x] *= a;
}

template __global__ void scale<float>(float *, float);

void run(float *x) { scale<<<1, 32>>>(x, 2.0f); }
