// Every launch form reaches the traced twin or, where it cannot record, runs the original
// unchanged: cudaLaunchKernelEx (C++ and C), cudaLaunchKernel and cudaLaunchCooperativeKernel
// with hand-built argument arrays, a function pointer, a table of kernels, a launcher template,
// a launch that leaves a defaulted argument out, attribute calls on the kernel, and a library
// launcher that builds its own argument array (warned: it runs the kernel unrecorded).
#include <cutrace/trace.h>
#include "library_launcher.h"

__global__ void fill(float *x, float v, int n) {
  TRACE_RECORD("fill", n);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = v;
}

__global__ void axpy(float a, const float *x, float *y, int n = 1024) {
  TRACE_RANGE("axpy");
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] += a * x[i];
}

template <int Step> __global__ void stride(float *x, int n) {
  TRACE_RECORD("stride", Step);
  for (int i = threadIdx.x; i < n; i += Step)
    x[i] = 0.0f;
}

// Template arguments given in part, the rest deduced from the launch's arguments (ggml's softmax).
template <bool Negate, typename T> __global__ void partial(T *x) {
  TRACE_RECORD("partial", Negate);
  x[threadIdx.x] = Negate ? -x[threadIdx.x] : x[threadIdx.x];
}

using FillKernel = void (*)(float *, float, int);
FillKernel table[] = {fill};

template <class K> void launch_with(K kernel, float *x, int n) {
  kernel<<<(n + 127) / 128, 128>>>(x, 1.0f, n);
}

// An attribute call on a template kernel inside a template registers the instance's pair.
template <int Step> void configure_stride() {
  cudaFuncSetAttribute(stride<Step>, cudaFuncAttributeMaxDynamicSharedMemorySize, 0);
}

void run(float *x, float *y, int n, cudaStream_t s) {
  configure_stride<32>();
  cudaFuncSetAttribute(fill, cudaFuncAttributeMaxDynamicSharedMemorySize, 0);
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(1);
  cfg.blockDim = dim3(128);
  cfg.stream = s;
  cudaLaunchKernelEx(&cfg, fill, x, 2.0f, n);
  void *fill_args[] = {&x, &n, &n};
  cudaLaunchKernel((const void *)fill, dim3(1), dim3(128), fill_args, 0, s);
  float a = 2.0f;
  void *axpy_args[] = {&a, &x, &y, &n};
  cudaLaunchCooperativeKernel((const void *)axpy, dim3(1), dim3(128), axpy_args, 0, s);
  cudaLaunchKernelExC(&cfg, (const void *)axpy, axpy_args);
  FillKernel f = table[0];
  f<<<1, 128, 0, s>>>(x, 3.0f, n);
  launch_with(fill, x, n);
  axpy<<<1, 128>>>(a, x, y);
  stride<32><<<1, 32>>>(x, n);
  partial<true><<<1, 32>>>(x);
  FillKernel g = &fill;
  g<<<1, 32>>>(x, 5.0f, n);
  library_launch(fill, dim3(1), dim3(128), x, 4.0f, n);
}
