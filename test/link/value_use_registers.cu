// A traced program whose template kernel is only ever taken as a value, the way a library's
// launcher is given it: the instance's (original, twin) pair is in the registry when main starts,
// before anything launches it. Built and run by check_value_use.sh; needs no GPU (with an
// argument on a machine with one, it then launches the instance through the pointer).
#include <cutrace/trace.h>
#if defined(CUTRACE_TRACED)
namespace cutrace::detail {
const void *registered_twin(const void *original); // the registry's lookup (cutrace/launch.h)
}
#endif

#include <cstdio>

template <class T, int Scale> __global__ void scale(T *x) {
  TRACE_RECORD("scale", Scale);
  x[threadIdx.x] *= Scale;
}

// Built before main, as a table a library keeps.
static const void *const kernels[] = {(void const *)&scale<float, 2>};

int main(int argc, char **) {
#if defined(CUTRACE_TRACED)
  const void *twin = cutrace::detail::registered_twin(kernels[0]);
  if (twin == nullptr || twin == kernels[0]) {
    std::printf("scale<float, 2>: no twin registered before main\n");
    return 1;
  }
  // The twin's distance from the original, which the test compares with the symbol table.
  std::printf("twin - original = %td\n", (const char *)twin - (const char *)kernels[0]);
#endif
  if (argc > 1) {
    float *x = nullptr;
    cudaMalloc(&x, 32 * sizeof(float));
    void *args[] = {&x};
    cudaLaunchKernel(kernels[0], dim3(1), dim3(32), args, 0, 0);
    cudaDeviceSynchronize();
  }
  return 0;
}
