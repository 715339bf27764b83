// A multi-file CUDA program that launches its kernels every way cutrace handles: kernels defined
// in kernels.cu and declared in kernels.h, a template kernel from tiles.cuh, cudaLaunchKernelEx,
// a function pointer, a cooperative launch with a hand-built argument array, a launch inside a
// macro, and a kernel handed to a library launcher. main checks every result, prints one PASS or
// FAIL line per kernel and exits with status 1 when any failed. docs/guide.md, "Your real
// project", walks through it.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#include <library_launch.h> // third_party/, on the -isystem path like any library

#include "kernels.h"
#include "tiles.cuh"

#define CHECK(call)                                                                                \
  do {                                                                                             \
    const cudaError_t err_ = (call);                                                               \
    if (err_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                          \
                   cudaGetErrorString(err_));                                                      \
      std::exit(2);                                                                                \
    }                                                                                              \
  } while (0)

// A launch written inside a macro, as many projects do.
#define LAUNCH_1D(kernel, n, ...) kernel<<<((n) + 255) / 256, 256>>>(__VA_ARGS__)

namespace {

int failures = 0;

void report(bool ok, const char *kernel, const char *how) {
  std::printf("%s %s (%s)\n", ok ? "PASS" : "FAIL", kernel, how);
  failures += ok ? 0 : 1;
}

template <class T> T *device_copy(const std::vector<T> &host) {
  T *d = nullptr;
  CHECK(cudaMalloc(&d, sizeof(T) * host.size()));
  CHECK(cudaMemcpy(d, host.data(), sizeof(T) * host.size(), cudaMemcpyHostToDevice));
  return d;
}

template <class T> std::vector<T> host_copy(const T *d, size_t n) {
  std::vector<T> host(n);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host.data(), d, sizeof(T) * n, cudaMemcpyDeviceToHost));
  return host;
}

void check_row_sum() {
  const int rows = 64, cols = 1000;
  std::vector<float> m(rows * cols);
  for (int i = 0; i < rows * cols; ++i)
    m[i] = float((i / cols + i % cols) % 7);
  float *dm = device_copy(m);
  float *dsums = device_copy(std::vector<float>(rows, 0.0f));
  row_sum<<<rows, 128>>>(dm, dsums, rows, cols);
  CHECK(cudaGetLastError());
  std::vector<float> sums = host_copy(dsums, rows);
  bool ok = true;
  for (int r = 0; r < rows; ++r) {
    float want = 0.0f;
    for (int c = 0; c < cols; ++c)
      want += m[r * cols + c];
    ok = ok && sums[r] == want;
  }
  report(ok, "row_sum", "<<<>>>, defined in kernels.cu");
  CHECK(cudaFree(dm));
  CHECK(cudaFree(dsums));
}

void check_block_max() {
  const int n = 4096;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i)
    x[i] = float((i * 37) % 1000);
  float *dx = device_copy(x);
  float *dout = device_copy(std::vector<float>(n / 256, 0.0f));
  block_max<256><<<n / 256, 256>>>(dx, dout, n);
  CHECK(cudaGetLastError());
  std::vector<float> out = host_copy(dout, n / 256);
  bool ok = true;
  for (int b = 0; b < n / 256; ++b) {
    float want = x[b * 256];
    for (int i = 1; i < 256; ++i)
      want = x[b * 256 + i] > want ? x[b * 256 + i] : want;
    ok = ok && out[b] == want;
  }
  report(ok, "block_max<256>", "<<<>>>, template defined in tiles.cuh");
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dout));
}

void check_scale() {
  const int n = 4096;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i)
    x[i] = float(i % 5);
  float *dx = device_copy(x);
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(n / 256);
  config.blockDim = dim3(256);
  // The launch call stands on its own: one written inside a macro argument is not recorded.
  const cudaError_t launched = cudaLaunchKernelEx(&config, scale, dx, 2.0f, n);
  CHECK(launched);
  std::vector<float> got = host_copy(dx, n);
  bool ok = true;
  for (int i = 0; i < n; ++i)
    ok = ok && got[i] == 2.0f * x[i];
  report(ok, "scale", "cudaLaunchKernelEx");
  CHECK(cudaFree(dx));
}

void check_square() {
  const int n = 4096;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i)
    x[i] = float(i % 11 - 5);
  float *dx = device_copy(x);
  void (*op)(float *, int) = square;
  op<<<n / 256, 256>>>(dx, n);
  CHECK(cudaGetLastError());
  std::vector<float> got = host_copy(dx, n);
  bool ok = true;
  for (int i = 0; i < n; ++i)
    ok = ok && got[i] == x[i] * x[i];
  report(ok, "square", "function pointer");
  CHECK(cudaFree(dx));
}

void check_grid_sum() {
  int n = 1 << 16;
  std::vector<float> x(n);
  float want = 0.0f;
  for (int i = 0; i < n; ++i) {
    x[i] = float(i % 3);
    want += x[i];
  }
  const int blocks = 8;
  float *dx = device_copy(x);
  float *dpartial = device_copy(std::vector<float>(blocks, 0.0f));
  float *dtotal = device_copy(std::vector<float>(1, 0.0f));
  void *args[] = {&dx, &dpartial, &dtotal, &n};
  const cudaError_t launched =
      cudaLaunchCooperativeKernel((const void *)grid_sum, dim3(blocks), dim3(256), args, 0, 0);
  CHECK(launched);
  std::vector<float> total = host_copy(dtotal, 1);
  report(total[0] == want, "grid_sum", "cudaLaunchCooperativeKernel, hand-built void* args[]");
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dpartial));
  CHECK(cudaFree(dtotal));
}

void check_iota() {
  const int n = 1000;
  int *dx = device_copy(std::vector<int>(n, -1));
  LAUNCH_1D(iota, n, dx, n);
  CHECK(cudaGetLastError());
  std::vector<int> got = host_copy(dx, n);
  bool ok = true;
  for (int i = 0; i < n; ++i)
    ok = ok && got[i] == i;
  report(ok, "iota", "<<<>>> inside a macro");
  CHECK(cudaFree(dx));
}

void check_saxpy() {
  int n = 4096;
  float a = 3.0f;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i)
    x[i] = float(i % 4);
  float *dx = device_copy(x);
  float *dy = device_copy(std::vector<float>(n, 1.0f));
  CHECK(library_launch(saxpy, dim3(n / 256), dim3(256), a, (const float *)dx, dy, n));
  std::vector<float> y = host_copy(dy, n);
  bool ok = true;
  for (int i = 0; i < n; ++i)
    ok = ok && y[i] == 1.0f + a * x[i];
  report(ok, "saxpy", "library launcher with its own argument array, not recorded");
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
}

} // namespace

int main() {
#ifdef CUTRACE_TRACED
  std::printf("multifile: traced build\n");
#else
  std::printf("multifile: plain build\n");
#endif
  check_row_sum();
  check_block_max();
  check_scale();
  check_square();
  check_grid_sum();
  check_iota();
  check_saxpy();
  std::printf("multifile: %d failure(s)\n", failures);
  return failures == 0 ? 0 : 1;
}
