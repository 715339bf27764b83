// Every value form of a traced template kernel's instance keeps its meaning (docs/launches.md,
// "Kernels taken as values"): the name alone becomes cutrace::Registered<...>::value, a reference
// to the same function, and the operators written around it stay: `&k<A>`, `&(k<A>)`,
// `(&k<A>)`, `k<A>` decaying, C and reinterpret casts, std::addressof, a reference bound to it,
// a template argument with and without `&`, a launcher template's argument, a macro's argument,
// and the CuTe tutorial's and CUTLASS kernel_launch.h's shapes inside function templates.
#include <cutrace/trace.h>
#include <memory>

template <class T, int Scale> __global__ void scale(T *x, int n) {
  TRACE_RECORD("scale", n);
  if (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n)
    x[i] *= Scale;
}

template <class Params> __global__ void device_kernel(Params params) {
  TRACE_RANGE("device_kernel");
  params.out[threadIdx.x] = 0.0f;
}

struct Params {
  float *out;
};

using ScaleKernel = void (*)(float *, int);
template <ScaleKernel K> struct Fixed {
  static constexpr ScaleKernel kernel = K;
};
template <class F> void launch_with(F kernel, float *x, int n) { kernel<<<1, 32>>>(x, n); }
#define SET_SMEM(bytes, ...)                                                                      \
  cudaFuncSetAttribute(__VA_ARGS__, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)

// As the CuTe Hopper tutorial takes its kernel's address for CUTLASS's launcher.
template <class T> void gemm_nt(T *x, int n) {
  auto *kernel_ptr = &scale<T, 2>;
  cudaFuncSetAttribute(kernel_ptr, cudaFuncAttributeMaxDynamicSharedMemorySize, 0);
  kernel_ptr<<<1, 32>>>(x, n);
}

// As cutlass/kernel_launch.h launches device_kernel<GemmKernel>.
template <class GemmKernel> cudaError_t launch_kernel(GemmKernel params, cudaStream_t s) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(1);
  config.blockDim = dim3(32);
  config.stream = s;
  return cudaLaunchKernelEx(&config, &device_kernel<GemmKernel>, params);
}

void run(float *x, int n, cudaStream_t s) {
  void (*a)(float *, int) = &scale<float, 2>;
  auto *b = &(scale<float, 2>);
  auto *c = (&scale<float, 2>);
  const void *d = (void *)scale<float, 2>;
  const void *e = reinterpret_cast<const void *>(&scale<float, 2>);
  auto *f = std::addressof(scale<float, 2>);
  void (&g)(float *, int) = scale<float, 2>;
  a<<<1, 32, 0, s>>>(x, n);
  b<<<1, 32, 0, s>>>(x, n);
  c<<<1, 32, 0, s>>>(x, n);
  f<<<1, 32, 0, s>>>(x, n);
  g<<<1, 32, 0, s>>>(x, n);
  cudaFuncAttributes attributes;
  cudaFuncGetAttributes(&attributes, d);
  cudaFuncGetAttributes(&attributes, e);
  Fixed<scale<float, 3>>::kernel<<<1, 32, 0, s>>>(x, n);
  Fixed<&scale<float, 3>>::kernel<<<1, 32, 0, s>>>(x, n);
  launch_with(scale<float, 4>, x, n);
  launch_with(&scale<float, 4>, x, n);
  SET_SMEM(0, scale<float, 5>);
  SET_SMEM(0, &scale<float, 5>);
  gemm_nt(x, n);
  launch_kernel(Params{x}, s);
}
