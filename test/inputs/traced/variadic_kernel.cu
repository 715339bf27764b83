// A kernel with a parameter pack: its twin takes the slots first, since a parameter after a pack
// cannot be deduced.
#include <cutrace/trace.h>

template <class... Ts> __global__ void count_args(int *x, Ts... ts) {
  TRACE_RECORD("count", sizeof...(Ts));
  x[0] = sizeof...(Ts);
}

template <class... Ts> __global__ void only_pack(Ts... ts) {
  TRACE_RECORD("pack");
}

void run(int *x, cudaStream_t s) {
  count_args<<<1, 32>>>(x, 1, 2.0f);
  count_args<<<1, 32, 0, s>>>(x);
  count_args<int, char><<<1, 32>>>(x, 1, 'c');
  only_pack<<<1, 32>>>();
  only_pack<<<1, 32>>> /* comment */ (x, 3);
}
