// EXPECT: 8:3: error: __device__ function 'scale' is an explicit specialization of a template: its twin would specialize a twin of the primary template, which the traced build does not write; annotate the primary template (choose per type with if constexpr) or give this code a function of its own name
// The same for a __device__ function template's explicit specialization that a traced kernel calls.
#include <cutrace/trace.h>

template <class T> __device__ T scale(T v) { return v * T(2); }

template <> __device__ float scale<float>(float v) {
  TRACE_RECORD("float");
  return v * 3.0f;
}

__global__ void calls(float *x) {
  TRACE_RECORD("k");
  x[0] = scale(x[0]);
}
