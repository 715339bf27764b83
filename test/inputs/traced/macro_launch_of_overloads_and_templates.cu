// A macro body's launch is edited once for all its expansions, into `cutrace::via(k, ...)`, which
// needs one function: a body that also launches an overload set, a template left to deduce or a
// kernel with omitted defaulted arguments stays as written, and its annotated launches are
// warned about (they run unrecorded, as in the plain build).
#include <cutrace/trace.h>

__global__ void fill(int *x) {
  TRACE_RECORD("int");
  x[threadIdx.x] = 1;
}
__global__ void fill(float *x) { x[threadIdx.x] = 1.0f; }

template <class T> __global__ void put(T *x) {
  TRACE_RECORD("put");
  x[threadIdx.x] = T(2);
}

__global__ void with_default(int *x, int v = 3) {
  TRACE_RECORD("default");
  x[threadIdx.x] = v;
}

#define LAUNCH_FILL(p) fill<<<1, 32>>>(p)
#define LAUNCH_PUT(p) put<<<1, 32>>>(p)
#define LAUNCH_DEFAULT(...) with_default<<<1, 32>>>(__VA_ARGS__)

void run(int *a, float *b) {
  LAUNCH_FILL(a);
  LAUNCH_FILL(b);
  LAUNCH_PUT(a);
  LAUNCH_DEFAULT(a, 4);
  LAUNCH_DEFAULT(a);
}
