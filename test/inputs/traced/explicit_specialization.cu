// EXPECT: 7:3: error: kernel 'fill' is an explicit specialization of a template: its twin would specialize a twin of the primary template, which the traced build does not write; annotate the primary template (choose per type with if constexpr) or give this code a kernel of its own name
// An explicit specialization of an unannotated kernel template, annotated.
#include <cutrace/trace.h>

template <class T> __global__ void fill(T *x) { x[0] = T(1); }
template <> __global__ void fill<float>(float *x) {
  TRACE_RECORD("f");
  x[0] = 2.0f;
}

void run(float *x) { fill<<<1, 1>>>(x); }
