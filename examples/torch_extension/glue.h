// The torch side of examples/torch_extension: checks the tensors and launches on torch's current
// stream. Included by bind.cpp (setup.py and load) and given to load_inline as its C++ source.
#pragma once
#include <ATen/cuda/CUDAContext.h>
#include <torch/extension.h>

void scale_add_launch(const float *x, float *y, float a, int n, cudaStream_t stream);

// y += a * x, in place, on the current stream (a CUDA graph capture included).
inline torch::Tensor scale_add(torch::Tensor x, torch::Tensor y, double a) {
  TORCH_CHECK(x.is_cuda() && y.is_cuda() && x.dtype() == torch::kFloat32 &&
                  y.dtype() == torch::kFloat32 && x.numel() == y.numel() && x.is_contiguous() &&
                  y.is_contiguous(),
              "scale_add wants two contiguous float32 CUDA tensors of one size");
  scale_add_launch(x.data_ptr<float>(), y.data_ptr<float>(), float(a), int(x.numel()),
                   at::cuda::getCurrentCUDAStream().stream());
  return y;
}
