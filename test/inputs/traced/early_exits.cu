// Ranges close on every exit of their block: fall-through, early return, break, continue, goto.
#include <cutrace/trace.h>

__global__ void early_exits(const int *flags, float *out, int n) {
  TRACE_RANGE("kernel");
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) {
    TRACE_RECORD("out_of_range", i);
    return;
  }
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) {
    TRACE_RANGE("step", "loop", k);
    if (flags[k] == 1)
      continue;
    if (flags[k] == 2)
      break;
    if (flags[k] == 3)
      goto done;
    acc += static_cast<float>(k);
  }
done:
  out[i] = acc;
}

int main() {
  int *flags;
  float *out;
  cudaMalloc(&flags, 64 * sizeof(int));
  cudaMalloc(&out, 64 * sizeof(float));
  early_exits<<<2, 32>>>(flags, out, 64);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
