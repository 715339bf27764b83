// Kernels and helpers declared in a namespace or a class and defined outside it, with qualified
// names: a kernel, a __device__ function, a static member function and a friend. The twins are
// declared in the scope of each declaration; the registration after `n::k`'s definition names
// the kernel and its twin as the definition does.
#include <cutrace/trace.h>

namespace n {
__global__ void k(int *);
__device__ void h(int *);
struct S {
  __device__ static void sm(int *x);
  friend __device__ void fr(S s, int *x);
};
__device__ void fr(S s, int *x);
} // namespace n

namespace m {
__global__ void k(int *);
}

__device__ void n::h(int *x) {
  TRACE_RANGE("h");
  x[1] = 2;
}

__device__ void n::S::sm(int *x) {
  TRACE_RANGE("sm");
  x[2] = 3;
}

__device__ void n::fr(S, int *x) {
  TRACE_RANGE("fr");
  x[3] = 4;
}

__global__ void n::k(int *x) {
  TRACE_RANGE("k");
  h(x);
  S::sm(x);
  fr(S{}, x);
}

__global__ void m::k(int *x) {
  TRACE_RANGE("m_k");
  x[0] = 1;
}

int main() {
  int *x = nullptr;
  n::k<<<1, 32>>>(x);
  m::k<<<1, 32>>>(x);
  return 0;
}
