// A template kernel this file never instantiates is traced (its twin is a template too), and a
// note says which checks could not run here.
#include <cutrace/trace.h>

template <class T> __global__ void scale_by(T *x, T factor) {
  TRACE_RECORD("scale", factor);
  x[threadIdx.x] *= factor;
}
