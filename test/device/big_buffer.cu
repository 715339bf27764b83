// Every launch recorded, each a big buffer (docs/PERFORMANCE.md section 5, "Recording every
// launch"): 1024 CTAs of 128 threads, a row per warp, 88 ranges per row (176 records): 11.8 MB of
// records per launch, the size of the 4096^3 wgmma GEMM's launches. 1 warm-up + 100 timed launches;
// prints the loop time and, in a traced build, the time until every timed launch is in the run
// file (cutrace::flush()), from which test/device/h200_whole_runs.sh computes the drain rate.
#include <cutrace/trace.h>
#ifdef CUTRACE_TRACED
#include <cutrace/host.h> // cutrace::flush()
#endif

#include <chrono>
#include <cstdio>
#include <cstdlib>

constexpr int kSteps = 88;

__global__ void steps(unsigned *sink, int spin) {
  TRACE_GROUPS("warp", 32);
  unsigned acc = threadIdx.x;
  for (int s = 0; s < kSteps; ++s) {
    TRACE_RANGE("step", "main", s);
    const long long until = clock64() + spin;
    while (clock64() < until)
      acc = acc * 1664525u + 1013904223u;
  }
  if (acc == 42u)
    sink[blockIdx.x] = acc;
}

int main(int argc, char **argv) {
  const int launches = argc > 1 ? std::atoi(argv[1]) : 100;
  unsigned *sink = nullptr;
  cudaMalloc(&sink, 1024 * sizeof(unsigned));
  steps<<<1024, 128>>>(sink, 2000); // warm-up
  cudaDeviceSynchronize();
#ifdef CUTRACE_TRACED
  cutrace::flush(); // the warm-up launch is in the run file: the timed part starts empty
#endif
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < launches; ++i)
    steps<<<1024, 128>>>(sink, 2000);
  cudaDeviceSynchronize();
  const auto t1 = std::chrono::steady_clock::now();
#ifdef CUTRACE_TRACED
  cutrace::flush();
#endif
  const auto t2 = std::chrono::steady_clock::now();
  const auto ms = [](auto a, auto b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  };
  std::printf("big_buffer: launches=%d loop_ms=%.1f flushed_ms=%.1f result=%s\n", launches + 1,
              ms(t0, t1), ms(t0, t2), cudaGetErrorString(cudaGetLastError()));
  return 0;
}
