// Kernel templates and a non-template overload of their name, all annotated: overload resolution
// and partial ordering pick the same function for the twins as for the originals.
#include <cutrace/trace.h>

template <class T> __global__ void store(T *x, T v) {
  TRACE_RECORD("template");
  x[threadIdx.x] = v;
}

template <class T> __global__ void store(T **x, T v) {
  TRACE_RECORD("template_indirect");
  x[0][threadIdx.x] = v;
}

__global__ void store(int *x, int v) {
  TRACE_RECORD("int");
  x[threadIdx.x] = v + 1;
}

void run(int *a, float *b, float **c) {
  store<<<1, 32>>>(a, 3);
  store<<<1, 32>>>(c, 4.0f);
  store<<<1, 32>>>(b, 2.0f);
  store<float><<<1, 32>>>(b, 1.0f);
}
