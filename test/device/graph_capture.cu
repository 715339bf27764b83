// Traced launches inside CUDA stream capture (docs/guide.md, "CUDA graphs"): the capture must
// succeed in the default global capture mode, the graph must compute what the plain program
// computes on every replay, and the run file must hold the captured launch once per flush,
// flagged as a graph launch, with the records of the last replay. Also launches outside the
// graph on the same stream, before and after, recorded as usual.
#include <cutrace/trace.h>

#include <cstdio>
#include <cstdlib>

__global__ void scale(float *x, float s, int n) {
  TRACE_RANGE("scale", "main", blockIdx.x);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = x[i] * s;
}

__global__ void shift(float *x, float d, int n) {
  TRACE_RANGE("shift", "main", blockIdx.x);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = x[i] + d;
}

#define CHECK(call)                                                                               \
  do {                                                                                            \
    cudaError_t e_ = (call);                                                                      \
    if (e_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

int main(int argc, char **argv) {
  const int replays = argc > 1 ? std::atoi(argv[1]) : 20;
  const int n = 1 << 16, threads = 256, blocks = n / threads;
  float *x = nullptr;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMemset(x, 0, n * sizeof(float)));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  shift<<<blocks, threads, 0, s>>>(x, 1.0f, n); // x = 1, outside any graph
  CHECK(cudaGetLastError());

  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  scale<<<blocks, threads, 0, s>>>(x, 2.0f, n);
  shift<<<blocks, threads, 0, s>>>(x, -1.0f, n); // x -> 2x - 1: stays 1
  CHECK(cudaStreamEndCapture(s, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int r = 0; r < replays; ++r)
    CHECK(cudaGraphLaunch(exec, s));
  shift<<<blocks, threads, 0, s>>>(x, 2.0f, n); // x = 3, after the graph
  CHECK(cudaStreamSynchronize(s));

  float *h = (float *)std::malloc(n * sizeof(float));
  CHECK(cudaMemcpy(h, x, n * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i)
    bad += h[i] != 3.0f;
  std::printf("graph_capture: %d replays, %s (%d wrong)\n", replays, bad ? "FAIL" : "ok", bad);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  return bad ? 1 : 0;
}
