// Strip rule: the line `#include <cutrace/trace.h>` goes.
#include <cstdint>

__global__ void widen(const int32_t *in, int64_t *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = static_cast<int64_t>(in[i]) << 20;
  }
}
