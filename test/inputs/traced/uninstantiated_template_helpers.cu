// Annotated templates the file never instantiates (a library header's collectives, as CUTLASS
// has them, of which a translation unit uses one) are code the unit does not compile: the traced
// build says nothing about them. One it instantiates and no kernel calls gets the usual warning.
#include <cutrace/trace.h>

template <class Policy> struct Mainloop;

struct Ss {};
struct Rs {};

template <> struct Mainloop<Ss> {
  __device__ void load(float *x) {
    TRACE_RANGE("load_ss");
    x[threadIdx.x] += 1.0f;
  }
};

template <class T> struct Mainloop<T *> { // a partial specialization nothing instantiates
  __device__ void load(float *x) {
    TRACE_RANGE("load_pointer");
    x[threadIdx.x] += 2.0f;
  }
};

template <class T> struct Unused { // a class template nothing instantiates
  __device__ void mma(float *x) {
    TRACE_RANGE("mma_unused");
    x[threadIdx.x] *= 2.0f;
  }
};

template <class T> __device__ void never_called(T *x) { // a function template, not instantiated
  TRACE_RANGE("never");
  x[threadIdx.x] = T(0);
}

template <class T> struct Instantiated {
  __device__ void step(float *x) {
    TRACE_RANGE("step");
    x[threadIdx.x] -= 1.0f;
  }
};
template struct Instantiated<int>; // instantiated, and no kernel calls step

__global__ void gemm(float *x) {
  TRACE_GROUP("block", 0);
  Mainloop<Ss>{}.load(x);
}
