// The examples' host harness: integer options (`--repeat N`, `--m 4096`) and kernel timing with
// CUDA events, the median of N launches, so the traced and the stripped build of an example can
// be compared.
#pragma once

#include "cuda_check.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

// The integer after `name` on the command line, or `fallback`.
inline int int_option(int argc, char **argv, const char *name, int fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0)
      return std::atoi(argv[i + 1]);
  return fallback;
}

// `--repeat N`: how many timed launches (0: none).
inline int repeat_count(int argc, char **argv) {
  return std::max(0, int_option(argc, argv, "--repeat", 0));
}

// Medians of `reps` launches of each of `launches`, taking turns so drift affects all alike.
template <class... Launch> std::vector<float> interleaved_medians(int reps, Launch... launches) {
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<std::vector<float>> ms(sizeof...(Launch), std::vector<float>(reps));
  for (int r = 0; r < reps; ++r) {
    int which = 0;
    for (auto launch : {std::function<void()>(launches)...}) {
      CUDA_CHECK(cudaEventRecord(start));
      launch();
      CUDA_CHECK(cudaEventRecord(stop));
      CUDA_CHECK(cudaEventSynchronize(stop));
      CUDA_CHECK(cudaEventElapsedTime(&ms[which++][r], start, stop));
    }
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  std::vector<float> medians;
  for (auto &v : ms) {
    std::sort(v.begin(), v.end());
    medians.push_back(v[reps / 2]);
  }
  return medians;
}

// The median of `reps` (> 0) launches.
template <class Launch> float median_ms(int reps, Launch launch) {
  return interleaved_medians(reps, launch)[0];
}
