// One traced template kernel used through every value form (docs/launches.md, "Kernels taken as
// values"): attribute and occupancy queries, cudaLaunchKernel/Ex/ExC with the pointer, <<<>>> on
// a pointer, a launcher template, a template argument, std::addressof, a macro. Each launch
// changes the data in an order-sensitive way, and each query's answer is printed (the shared
// memory limit set through one form is read back through another): the plain and the traced
// build must print the same lines. test/device/gpu_value_forms.sh builds and compares both.
//   nvcc -std=c++17 -arch=sm_90 -Iruntime/include value_forms.cu -o value_forms   (plain build)
#include <cutrace/trace.h>

#include <cstdio>
#include <memory>
#include <vector>

template <int Step> __global__ void accumulate(unsigned *x, int n) {
  TRACE_RECORD("accumulate", Step);
  if (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n)
    x[i] = x[i] * 3u + Step + i; // a lost, extra or reordered launch changes the result
}

using Kernel = void (*)(unsigned *, int);
template <Kernel K> struct Fixed {
  static constexpr Kernel kernel = K;
};
template <class F> void launch_with(F kernel, unsigned *x, int n) { kernel<<<1, 64>>>(x, n); }
#define SET_SMEM(kernel, bytes)                                                                   \
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)

static int failures = 0;
static void said(const char *what, cudaError_t e) {
  std::printf("%-28s %s\n", what, cudaGetErrorName(e));
  failures += e != cudaSuccess;
}
static void limit(const char *what, const void *kernel) {
  cudaFuncAttributes a{};
  said(what, cudaFuncGetAttributes(&a, kernel));
  std::printf("%-28s maxDynamicSharedSizeBytes=%d maxThreadsPerBlock=%d\n", what,
              a.maxDynamicSharedSizeBytes, a.maxThreadsPerBlock);
}

int main() {
  const int n = 64;
  unsigned *x = nullptr;
  said("cudaMalloc", cudaMalloc(&x, n * sizeof(unsigned)));
  said("cudaMemset", cudaMemset(x, 0, n * sizeof(unsigned)));
  int launches = 0;

  // The CuTe tutorial's form: the kernel's address into a variable, an attribute, a launch.
  auto *kernel_ptr = &accumulate<1>;
  said("set &K", cudaFuncSetAttribute(kernel_ptr, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024));
  limit("get (void *)K", (void *)accumulate<1>);
  kernel_ptr<<<1, 64>>>(x, n), ++launches;

  int blocks = 0;
  said("occupancy K", cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, accumulate<2>, 64, 0));
  std::printf("%-28s %d\n", "occupancy blocks", blocks);
  void *args[] = {&x, (void *)&n};
  said("cudaLaunchKernel cast(&K)",
       cudaLaunchKernel(reinterpret_cast<const void *>(&accumulate<2>), dim3(1), dim3(64), args, 0,
                        nullptr)),
      ++launches;

  // cutlass/kernel_launch.h's form, and the kernel decaying.
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(1);
  config.blockDim = dim3(64);
  said("cudaLaunchKernelEx &K", cudaLaunchKernelEx(&config, &accumulate<3>, x, n)), ++launches;
  said("cudaLaunchKernelEx K", cudaLaunchKernelEx(&config, accumulate<3>, x, n)), ++launches;
  said("cudaLaunchKernelExC (void*)&K",
       cudaLaunchKernelExC(&config, (void const *)&accumulate<8>, args)),
      ++launches;

  launch_with(accumulate<4>, x, n), ++launches;
  launch_with(&accumulate<4>, x, n), ++launches;
  Fixed<&accumulate<5>>::kernel<<<1, 64>>>(x, n), ++launches;
  Fixed<accumulate<5>>::kernel<<<1, 64>>>(x, n), ++launches;
  std::addressof(accumulate<6>)<<<1, 64>>>(x, n), ++launches;
  (&accumulate<6>)<<<1, 64>>>(x, n), ++launches;
  auto *parenthesized = &(accumulate<6>);
  parenthesized<<<1, 64>>>(x, n), ++launches;
  Kernel table[] = {&accumulate<9>, accumulate<10>};
  table[0]<<<1, 64>>>(x, n), ++launches;
  table[1]<<<1, 64>>>(x, n), ++launches;

  said("SET_SMEM(&K)", SET_SMEM(&accumulate<7>, 2048));
  limit("get K", reinterpret_cast<const void *>(accumulate<7>));
  said("SET_SMEM(K)", SET_SMEM(accumulate<7>, 3072));
  limit("get &K", reinterpret_cast<const void *>(&accumulate<7>));
  accumulate<7><<<1, 64, 3072>>>(x, n), ++launches;

  said("launches", cudaGetLastError());
  said("synchronize", cudaDeviceSynchronize());
  std::vector<unsigned> host(n);
  said("copy back", cudaMemcpy(host.data(), x, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned long long hash = 0;
  for (int i = 0; i < n; ++i)
    hash = hash * 31 + host[i];
  std::printf("launches %d, x[0] %u, x[63] %u, hash %llu\n", launches, host[0], host[63], hash);
  cudaFree(x);
  return failures ? 1 : 0;
}
