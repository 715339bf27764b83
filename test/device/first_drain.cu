// Launches of one kernel queued back to back while its first recorded launch is still running
// (docs/guide.md, "Row capacity"): the first is sized from the launch budget's share and, with
// CUTRACE_LAUNCH_MB=1, overflows; the ones queued behind it wait for its drain and are sized from
// what its fullest row attempted, so they drop nothing. Then 4 host threads, each with its own
// stream, launch another kernel back to back: the waits of several threads end with one drain.
// Built and run by test/device/gpu_first_drain.sh.
#include <cutrace/trace.h>

#include <cstdio>
#include <thread>
#include <vector>

__global__ void deep(int *x, int steps) {
  for (int i = 0; i < steps; ++i) {
    TRACE_RANGE("step", "main", i);
    x[blockIdx.x] += i;
  }
}

__global__ void shallow(int *x, int steps) {
  for (int i = 0; i < steps; ++i) {
    TRACE_RANGE("step", "main", i);
    x[blockIdx.x] += i;
  }
}

int main() {
  constexpr int kCtas = 132, kSteps = 20000, kThreads = 4;
  int *x = nullptr;
  cudaMalloc(&x, kThreads * kCtas * sizeof(int));
  for (int i = 0; i < 4; ++i) // one stream, queued back to back
    deep<<<kCtas, 32>>>(x, kSteps);
  cudaDeviceSynchronize();
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t)
    workers.emplace_back([=] {
      cudaStream_t stream;
      cudaStreamCreate(&stream);
      for (int i = 0; i < 3; ++i)
        shallow<<<kCtas, 32, 0, stream>>>(x + t * kCtas, kSteps);
      cudaStreamSynchronize(stream);
      cudaStreamDestroy(stream);
    });
  for (std::thread &w : workers)
    w.join();
  std::printf("first_drain: %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
