// y = a * x + y over a float tensor, in tiles: the kernel of examples/torch_extension
// (docs/torch.md). Plain CUDA C++ with a C++ launcher, so the rewrite parses it without torch's
// headers; bind.cpp holds the torch side.
#include <cutrace/trace.h>

#include <cuda_runtime.h>

constexpr int kTile = 256;

__global__ void scale_add_kernel(const float *x, float *y, float a, int n) {
  TRACE_GROUP("block", 0);
  TRACE_RANGE("tiles");
  for (int base = blockIdx.x * kTile; base < n; base += gridDim.x * kTile) {
    TRACE_RANGE("tile", "main", base / kTile);
    const int i = base + threadIdx.x;
    if (i < n)
      y[i] = a * x[i] + y[i];
  }
  TRACE_RECORD("done", n);
}

void scale_add_launch(const float *x, float *y, float a, int n, cudaStream_t stream) {
  const int tiles = (n + kTile - 1) / kTile;
  const int blocks = tiles < 64 ? tiles : 64;
  scale_add_kernel<<<blocks, kTile, 0, stream>>>(x, y, a, n);
}
