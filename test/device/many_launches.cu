// Many launches from several host threads on several streams, all rewritten launch sites: the
// automatic mode must record the first CUTRACE_MAX_LAUNCHES (default 64) launches of the kernel,
// count the rest, and keep host memory bounded.
#include <cutrace/trace.h>

#include <cstdio>
#include <thread>
#include <vector>

__global__ void tick(int *x, int i) {
  TRACE_RANGE("tick", "main", i);
  x[blockIdx.x] += i;
}

int main() {
  constexpr int kThreads = 4, kLaunches = 1000;
  int *x = nullptr;
  cudaMalloc(&x, kThreads * 8 * sizeof(int));
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t)
    workers.emplace_back([=] {
      cudaStream_t stream;
      cudaStreamCreate(&stream);
      for (int i = 0; i < kLaunches; ++i)
        tick<<<8, 32, 0, stream>>>(x + t * 8, i);
      cudaStreamSynchronize(stream);
      cudaStreamDestroy(stream);
    });
  for (std::thread &w : workers)
    w.join();
  std::printf("launched %d kernels from %d threads: %s\n", kThreads * kLaunches, kThreads,
              cudaGetErrorString(cudaGetLastError()));
  return 0;
}
