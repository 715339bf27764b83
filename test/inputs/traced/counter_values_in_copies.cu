// A twin's copy writes the __COUNTER__ values its original got: written in the body, through a
// macro (its expansion spelled with the value in it, a call over two lines keeping the lines
// after it), and different in the host and device compilations (a device-only function before
// it takes one). A use in an annotation's payload is left to the marker. A macro whose
// expansion holds a _Pragma cannot be spelled: the copy expands it again, with a warning.
#include <cutrace/trace.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define ID(x) x
#define UNROLLED_SUM(n, out) _Pragma("unroll") for (int i = 0; i < 2; ++i) out += n + 0 * __COUNTER__

#ifdef __CUDA_ARCH__
__device__ int device_only() { return __COUNTER__; }
#endif

__global__ void k(int *x) {
  TRACE_RANGE("body");
  x[0] = __COUNTER__;
  [[maybe_unused]] int CAT(v_, __COUNTER__) = 1;
  x[1] = ID(
      __COUNTER__) + 2;
  TRACE_RECORD("payload", __COUNTER__);
}

__global__ void pragma_macro(int *x) {
  TRACE_RANGE("loop");
  int s = 0;
  UNROLLED_SUM(3, s);
  x[0] = s;
}

__global__ void after(int *x) { x[0] = __COUNTER__; }
