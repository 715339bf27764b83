// `--repeat N`: time a launch N times with CUDA events and report the median, so the traced and
// the stripped build of an example can be compared.
#pragma once

#include "cuda_check.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

inline int repeat_count(int argc, char **argv) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--repeat") == 0)
      return std::max(0, std::atoi(argv[i + 1]));
  return 0;
}

template <class Launch> float median_ms(int reps, Launch launch) {
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<float> ms(reps);
  for (float &m : ms) {
    CUDA_CHECK(cudaEventRecord(start));
    launch();
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_CHECK(cudaEventElapsedTime(&m, start, stop));
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  std::sort(ms.begin(), ms.end());
  return ms[reps / 2];
}
