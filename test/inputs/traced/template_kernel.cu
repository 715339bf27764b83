// A templated kernel launched with two instantiations shares one decode map; edits are made once
// per spelled location.
#include <cutrace/trace.h>

template <typename T, int Block>
__global__ void __launch_bounds__(Block) fill(T *out, T value, int n) {
  TRACE_RANGE("fill", "main", Block);
  int i = blockIdx.x * Block + threadIdx.x;
  if (i < n)
    out[i] = value;
}

template <typename T>
void launch_fill(T *out, T value, int n) {
  fill<T, 128><<<(n + 127) / 128, 128>>>(out, value, n);
}

void run(float *f, double *d, int n) {
  launch_fill(f, 1.0f, n);
  fill<double, 256><<<dim3((n + 255) / 256), dim3(256)>>>(d, 2.0, n);
}
