// A template kernel's instances taken as values (docs/launches.md, "Kernels taken as values"):
// each use as a pointer becomes cutrace::Registered<...>::value, the same pointer, still a
// constant expression, registering the instance's pair before main: `&k<A>`, `k<A>` decaying,
// casts, a table, a template argument, attribute, occupancy, cache, handle and launch API calls,
// an instance named through a launcher's template parameter (its last template parameter left
// to its default), an explicit instantiation. A use whose template arguments are deduced cannot
// be routed: warned, and registered with the runtime so that its launches are counted at exit.
#include <cutrace/trace.h>

template <class T, int Scale> __global__ void scale(T *x, int n) {
  TRACE_RECORD("scale", n);
  if (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n)
    x[i] *= Scale;
}

template <class T, int Stages = 2> __global__ void device_kernel(T params) {
  TRACE_RANGE("device_kernel");
  params.run();
}

struct Gemm {
  float *out;
  static constexpr int kSmem = 1024;
  __device__ void run() { out[threadIdx.x] = 0.0f; }
};

using ScaleKernel = void (*)(float *, int);
ScaleKernel table[] = {&scale<float, 2>, scale<float, 3>};

template <ScaleKernel K> struct Fixed {
  static constexpr ScaleKernel kernel = K;
};

// As CUTLASS's GemmUniversalAdapter<GemmKernel>::run launches device_kernel<GemmKernel>.
template <class Op> struct Adapter {
  static cudaError_t run(Op op, cudaStream_t s) {
    const void *kernel = (void const *)&device_kernel<Op>;
    cudaFuncSetAttribute(device_kernel<Op>, cudaFuncAttributeMaxDynamicSharedMemorySize, Op::kSmem);
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(1);
    cfg.blockDim = dim3(128);
    cfg.dynamicSmemBytes = Op::kSmem;
    cfg.stream = s;
    void *args[] = {&op};
    return cudaLaunchKernelExC(&cfg, kernel, args);
  }
};

template __global__ void scale<int, 4>(int *, int);

void run(float *x, int n, cudaStream_t s) {
  table[0]<<<1, 128, 0, s>>>(x, n);
  Fixed<&scale<float, 5>>::kernel<<<1, 128, 0, s>>>(x, n);
  int blocks = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, scale<float, 2>, 128, 0);
  cudaFuncSetCacheConfig(scale<float, 2>, cudaFuncCachePreferL1);
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(1);
  cfg.blockDim = dim3(128);
  cfg.stream = s;
  void *args[] = {&x, &n};
  cudaLaunchKernelExC(&cfg, (void const *)&scale<float, 6>, args);
  cudaLaunchKernelEx(&cfg, scale<float, 7>, x, n);
  Adapter<Gemm>::run(Gemm{x}, s);
  cudaKernel_t handle;
  cudaGetKernel(&handle, scale<float, 2>);
  void (*deduced)(Gemm) = device_kernel;
  deduced<<<1, 128, 0, s>>>(Gemm{x});
}
