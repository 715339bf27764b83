// Host-side error check shared by the examples: report the failing call and stop.
#ifndef CUTRACE_EXAMPLES_CUDA_CHECK_H
#define CUTRACE_EXAMPLES_CUDA_CHECK_H

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                                           \
  do {                                                                                             \
    cudaError_t err_ = (call);                                                                     \
    if (err_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                           \
                   cudaGetErrorString(err_));                                                      \
      std::exit(2);                                                                                \
    }                                                                                              \
  } while (0)

#endif // CUTRACE_EXAMPLES_CUDA_CHECK_H
