// A kernel template and a non-template overload of its name, both annotated: partial ordering
// picks the same function for the twins as for the originals.
#include <cutrace/trace.h>

template <class T> __global__ void store(T *x, T v) {
  TRACE_RECORD("template");
  x[threadIdx.x] = v;
}

__global__ void store(int *x, int v) {
  TRACE_RECORD("int");
  x[threadIdx.x] = v + 1;
}

void run(int *a, float *b) {
  store<<<1, 32>>>(a, 3);
  store<<<1, 32>>>(b, 2.0f);
  store<float><<<1, 32>>>(b, 1.0f);
}
