// cutrace-test-flags: -std=c++17 --extended-lambda
// Mixed-precision activation pipeline: bf16 activations are scaled per row into FP8 (e4m3) with
// an amax found in shared memory, and an element-wise map over a 2-D grid applies a device
// lambda. Kernels are launched from host functions and from a host lambda.
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include "cutrace/trace.h"

#include <cstdint>
#include <cstdio>
#include <vector>

constexpr float kFp8E4M3Max = 448.0f;

// One block per row; blockDim.x threads stride over the columns.
template <int Threads>
__global__ void __launch_bounds__(Threads)
    quantize_rows(const __nv_bfloat16 *__restrict__ x, __nv_fp8_e4m3 *__restrict__ q,
                  float *__restrict__ row_scale, int rows, int cols) {
  extern __shared__ float amax_smem[];
  TRACE_DAG("amax", "quantize");
  const int row = blockIdx.x;
  if (row >= rows) {
    TRACE_RECORD("idle_block", row);
    return;
  }
  const __nv_bfloat16 *xr = x + static_cast<size_t>(row) * cols;

  auto amax_range = TRACE_RANGE_START("amax", "reduce", row);
  float amax = 0.0f;
  for (int c = threadIdx.x; c < cols; c += Threads) {
    amax = fmaxf(amax, fabsf(__bfloat162float(xr[c])));
  }
  amax_smem[threadIdx.x] = amax;
  __syncthreads();
  for (int width = Threads / 2; width > 0; width /= 2) {
    if (threadIdx.x < width) {
      amax_smem[threadIdx.x] = fmaxf(amax_smem[threadIdx.x], amax_smem[threadIdx.x + width]);
    }
    __syncthreads();
    TRACE_RECORD("width", width, "reduce");
  }
  TRACE_RANGE_END(amax_range);
  const float scale = amax_smem[0] > 0.0f ? kFp8E4M3Max / amax_smem[0] : 1.0f;
  if (threadIdx.x == 0) {
    row_scale[row] = 1.0f / scale;
  }
  TRACE_RANGE("quantize", "main", row);

  __nv_fp8_e4m3 *qr = q + static_cast<size_t>(row) * cols;
  for (int c = threadIdx.x; c < cols; c += Threads) {
    qr[c] = __nv_fp8_e4m3(__bfloat162float(xr[c]) * scale);
  }
}

// Dequantise back to bf16 with a 2-D block: x covers columns, y covers rows.
__global__ void dequantize_2d(const __nv_fp8_e4m3 *__restrict__ q, const float *__restrict__ row_scale,
                              __nv_bfloat16 *__restrict__ y, int rows, int cols) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  TRACE_GROUP("tile2d", 0);
  if (row < rows && col < cols) {
    TRACE_RECORD("cell", row * cols + col);
    const size_t i = static_cast<size_t>(row) * cols + col;
    y[i] = __float2bfloat16(static_cast<float>(q[i]) * row_scale[row]);
  }
}

// Element-wise map over a 2-D grid with any device functor (a device lambda at the call sites).
template <typename F>
__global__ void map_2d(__nv_bfloat16 *__restrict__ data, int rows, int cols, F f) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= rows || col >= cols) {
    return;
  }
  TRACE_RANGE("map", "main", row);
  const size_t i = static_cast<size_t>(row) * cols + col;
  data[i] = __float2bfloat16(f(__bfloat162float(data[i]), row, col));
}

// Packed conversion of pairs: bf16x2 -> float2 -> two fp8 values stored as a 16-bit word.
__global__ void pack_pairs(const __nv_bfloat162 *__restrict__ in, __nv_fp8x2_e4m3 *__restrict__ out,
                           int pairs) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < pairs) { TRACE_RECORD("pair", i);
    const float2 f = __bfloat1622float2(in[i]);
    out[i] = __nv_fp8x2_e4m3(f);
  }
}

template <int Threads>
cudaError_t quantize(const __nv_bfloat16 *x, __nv_fp8_e4m3 *q, float *scales, int rows, int cols,
                     cudaStream_t stream) {
  const size_t smem = Threads * sizeof(float);
  quantize_rows<Threads><<<rows, Threads, smem, stream>>>(x, q, scales, rows, cols);
  return cudaGetLastError();
}

cudaError_t gelu_then_clip(__nv_bfloat16 *data, int rows, int cols, float clip,
                           cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((cols + 31) / 32, (rows + 7) / 8);
  auto gelu = [] __device__(float v, int, int) {
    return 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
  };
  map_2d<<<grid, block, 0, stream>>>(data, rows, cols, gelu);
  auto clip_fn = [clip] __device__(float v, int row, int col) {
    const float limit = (row + col) % 2 == 0 ? clip : 2.0f * clip;
    return fminf(fmaxf(v, -limit), limit);
  };
  map_2d<<<grid, block, 0, stream>>>(data, rows, cols, clip_fn);
  return cudaGetLastError();
}

int main() {
  const int rows = 128;
  const int cols = 1000;
  const size_t n = static_cast<size_t>(rows) * cols;
  std::vector<__nv_bfloat16> h(n);
  for (size_t i = 0; i < n; ++i) {
    h[i] = __float2bfloat16(static_cast<float>(static_cast<int>(i % 97) - 48) * 0.125f);
  }
  __nv_bfloat16 *x = nullptr;
  __nv_bfloat16 *y = nullptr;
  __nv_fp8_e4m3 *q = nullptr;
  __nv_fp8x2_e4m3 *q2 = nullptr;
  float *scales = nullptr;
  cudaMalloc(&x, n * sizeof(__nv_bfloat16));
  cudaMalloc(&y, n * sizeof(__nv_bfloat16));
  cudaMalloc(&q, n * sizeof(__nv_fp8_e4m3));
  cudaMalloc(&q2, n / 2 * sizeof(__nv_fp8x2_e4m3));
  cudaMalloc(&scales, rows * sizeof(float));
  cudaMemcpy(x, h.data(), n * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice);

  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaError_t err = gelu_then_clip(x, rows, cols, 3.0f, stream);
  if (err == cudaSuccess) {
    err = quantize<128>(x, q, scales, rows, cols, stream);
  }
  if (err == cudaSuccess) {
    err = quantize<256>(x, q, scales, rows, cols, stream);
  }
  auto dequantize = [&](cudaStream_t s) {
    const dim3 block(64, 4);
    const dim3 grid((cols + 63) / 64, (rows + 3) / 4);
    dequantize_2d<<<grid, block, 0, s>>>(q, scales, y, rows, cols);
    pack_pairs<<<(n / 2 + 255) / 256, 256, 0, s>>>(
        reinterpret_cast<const __nv_bfloat162 *>(y), q2, static_cast<int>(n / 2));
    return cudaGetLastError();
  };
  if (err == cudaSuccess) {
    err = dequantize(stream);
  }
  cudaStreamSynchronize(stream);
  std::vector<__nv_bfloat16> back(n);
  cudaMemcpy(back.data(), y, n * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost);
  std::printf("%s y[5]=%f\n", cudaGetErrorString(err), __bfloat162float(back[5]));
  cudaStreamDestroy(stream);
  cudaFree(x);
  cudaFree(y);
  cudaFree(q);
  cudaFree(q2);
  cudaFree(scales);
  return err == cudaSuccess ? 0 : 1;
}
