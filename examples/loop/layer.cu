// A transformer-layer-like chain launched in a loop, the way a training or inference loop
// launches kernels thousands of times: out = x + softmax(layernorm(x * w)), all 512 x 512 fp32,
// as four kernels per iteration (matmul, layernorm, softmax, residual_add). Every iteration
// computes the same values from the same inputs, so the buffers after the loop are checked
// against a CPU reference of one iteration (exit 1 on a mismatch).
//
//   loop [iterations] [mode]     iterations: default 2000, plus one untimed warm-up iteration
//     single    (default) one stream
//     streams2  iteration i on stream i % 2, each stream with its own buffers
//     graph     one iteration captured into a CUDA graph (global capture mode), replayed
//     gpus2     one host thread per device on two devices (one, and says so, if only one exists)
//
// Prints one `loop:` line with the loop time (CUDA events and the host clock, launch to final
// synchronisation) and, at exit after the runtime's own exit work, the peak RSS (VmHWM).
// examples/loop/run_on_h200.sh measures it plain and traced (docs/guide.md, "Your real project").
#include <cutrace/trace.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "../common/cuda_check.h"

constexpr int kDim = 512; // rows, columns and inner dimension of every matrix
constexpr int kTile = 32; // matmul: a kTile x kTile output tile per CTA, one thread per element
constexpr int kRowThreads = 128; // layernorm and softmax: one CTA per row
constexpr int kKernelsPerIteration = 4;
constexpr float kEps = 1e-5f;

// Each k-tile is a "load" slice (global to shared) and a "compute" slice (the tile's products);
// the arrows pair the i-th load with the i-th compute of each CTA.
__global__ void matmul(const float *a, const float *b, float *c, int n) {
  TRACE_DAG("load", "compute");
  TRACE_GROUP("tile", 0);
  __shared__ float a_tile[kTile][kTile];
  __shared__ float b_tile[kTile][kTile];
  const int row = blockIdx.y * kTile + threadIdx.y;
  const int col = blockIdx.x * kTile + threadIdx.x;
  float acc = 0.0f;
  for (int kt = 0; kt < n / kTile; ++kt) {
    {
      TRACE_RANGE("load", "mem", kt);
      a_tile[threadIdx.y][threadIdx.x] = a[row * n + kt * kTile + threadIdx.x];
      b_tile[threadIdx.y][threadIdx.x] = b[(kt * kTile + threadIdx.y) * n + col];
      __syncthreads();
    }
    {
      TRACE_RANGE("compute", "math", kt);
      for (int k = 0; k < kTile; ++k)
        acc += a_tile[threadIdx.y][k] * b_tile[k][threadIdx.x];
      __syncthreads();
    }
  }
  c[row * n + col] = acc;
}

// The sum over the CTA of every thread's `v`, returned to every thread. `scratch` holds one
// float per warp; the leading barrier lets a second call reuse it.
__device__ float block_sum(float v, float *scratch) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  __syncthreads();
  if (threadIdx.x % 32 == 0)
    scratch[threadIdx.x / 32] = v;
  __syncthreads();
  float total = 0.0f;
  for (int w = 0; w < int(blockDim.x / 32); ++w)
    total += scratch[w];
  return total;
}

__device__ float block_max(float v, float *scratch) {
  for (int offset = 16; offset > 0; offset /= 2)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  __syncthreads();
  if (threadIdx.x % 32 == 0)
    scratch[threadIdx.x / 32] = v;
  __syncthreads();
  float best = scratch[0];
  for (int w = 1; w < int(blockDim.x / 32); ++w)
    best = fmaxf(best, scratch[w]);
  return best;
}

// One CTA per row: mean and variance (two passes), then the scaled and shifted row.
__global__ void layernorm(const float *in, const float *gamma, const float *beta, float *out,
                          int n) {
  __shared__ float scratch[kRowThreads / 32];
  const int row = blockIdx.x;
  const float *x = in + size_t(row) * n;
  float mean = 0.0f, inv_std = 0.0f;
  {
    TRACE_RANGE("reduce", "stats", row);
    float sum = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
      sum += x[i];
    mean = block_sum(sum, scratch) / n;
    float squares = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
      squares += (x[i] - mean) * (x[i] - mean);
    inv_std = 1.0f / sqrtf(block_sum(squares, scratch) / n + kEps);
  }
  {
    TRACE_RANGE("normalize", "math", row);
    for (int i = threadIdx.x; i < n; i += blockDim.x)
      out[size_t(row) * n + i] = (x[i] - mean) * inv_std * gamma[i] + beta[i];
  }
}

// One CTA per row: the row's maximum, the sum of exponentials, then the normalized row.
__global__ void softmax(const float *in, float *out, int n) {
  __shared__ float scratch[kRowThreads / 32];
  const int row = blockIdx.x;
  const float *x = in + size_t(row) * n;
  float top = -INFINITY, sum = 0.0f;
  {
    TRACE_RANGE("max", "stats", row);
    for (int i = threadIdx.x; i < n; i += blockDim.x)
      top = fmaxf(top, x[i]);
    top = block_max(top, scratch);
  }
  {
    TRACE_RANGE("sum", "stats", row);
    for (int i = threadIdx.x; i < n; i += blockDim.x)
      sum += expf(x[i] - top);
    sum = block_sum(sum, scratch);
  }
  {
    TRACE_RANGE("normalize", "math", row);
    for (int i = threadIdx.x; i < n; i += blockDim.x)
      out[size_t(row) * n + i] = expf(x[i] - top) / sum;
  }
}

// Not annotated: it runs as in the plain build and is never recorded.
__global__ void residual_add(const float *x, const float *y, float *out, int count) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
    out[i] = x[i] + y[i];
}

// The inputs and, in double precision, what each kernel must produce from them.
struct Problem {
  std::vector<float> x, w, gamma, beta;
  std::vector<double> h, ln, sm, out;
};

// Small integers: every product and partial sum of the matmul is exact in float.
static int small_int(unsigned i, unsigned salt, int range) {
  unsigned v = (i + salt) * 2654435761u;
  return int((v >> 16) % unsigned(2 * range + 1)) - range;
}

static Problem make_problem() {
  const int n = kDim;
  Problem p;
  p.x.resize(n * n);
  p.w.resize(n * n);
  p.gamma.resize(n);
  p.beta.resize(n);
  for (int i = 0; i < n * n; ++i) {
    p.x[i] = float(small_int(i, 1, 2));
    p.w[i] = float(small_int(i, 7, 3));
  }
  for (int j = 0; j < n; ++j) {
    p.gamma[j] = 1.0f + 0.01f * float(j % 7);
    p.beta[j] = 0.01f * float(j % 5 - 2);
  }
  p.h.assign(n * n, 0.0);
  for (int r = 0; r < n; ++r)
    for (int k = 0; k < n; ++k)
      for (int c = 0; c < n; ++c)
        p.h[r * n + c] += double(p.x[r * n + k]) * p.w[k * n + c];
  p.ln.resize(n * n);
  p.sm.resize(n * n);
  p.out.resize(n * n);
  for (int r = 0; r < n; ++r) {
    const double *h = &p.h[r * n];
    double mean = 0.0, var = 0.0;
    for (int c = 0; c < n; ++c)
      mean += h[c];
    mean /= n;
    for (int c = 0; c < n; ++c)
      var += (h[c] - mean) * (h[c] - mean);
    const double inv_std = 1.0 / std::sqrt(var / n + kEps);
    double *ln = &p.ln[r * n];
    for (int c = 0; c < n; ++c)
      ln[c] = (h[c] - mean) * inv_std * p.gamma[c] + p.beta[c];
    const double top = *std::max_element(ln, ln + n);
    double sum = 0.0;
    for (int c = 0; c < n; ++c)
      sum += std::exp(ln[c] - top);
    for (int c = 0; c < n; ++c) {
      p.sm[r * n + c] = std::exp(ln[c] - top) / sum;
      p.out[r * n + c] = p.x[r * n + c] + p.sm[r * n + c];
    }
  }
  return p;
}

// One copy of the inputs and the outputs of every kernel, on the current device.
struct LayerBuffers {
  float *x = nullptr, *w = nullptr, *gamma = nullptr, *beta = nullptr;
  float *h = nullptr, *ln = nullptr, *sm = nullptr, *out = nullptr;
};

static LayerBuffers upload(const Problem &p) {
  const size_t matrix = sizeof(float) * kDim * kDim, row = sizeof(float) * kDim;
  LayerBuffers b;
  for (float **m : {&b.x, &b.w, &b.h, &b.ln, &b.sm, &b.out})
    CUDA_CHECK(cudaMalloc(m, matrix));
  CUDA_CHECK(cudaMalloc(&b.gamma, row));
  CUDA_CHECK(cudaMalloc(&b.beta, row));
  CUDA_CHECK(cudaMemcpy(b.x, p.x.data(), matrix, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(b.w, p.w.data(), matrix, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(b.gamma, p.gamma.data(), row, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(b.beta, p.beta.data(), row, cudaMemcpyHostToDevice));
  return b;
}

static void release(const LayerBuffers &b) {
  for (float *m : {b.x, b.w, b.gamma, b.beta, b.h, b.ln, b.sm, b.out})
    CUDA_CHECK(cudaFree(m));
}

// One iteration: the four kernels, in order, on `stream`.
static void enqueue_layer(const LayerBuffers &b, cudaStream_t stream) {
  const dim3 tiles(kDim / kTile, kDim / kTile), tile_threads(kTile, kTile);
  matmul<<<tiles, tile_threads, 0, stream>>>(b.x, b.w, b.h, kDim);
  layernorm<<<kDim, kRowThreads, 0, stream>>>(b.h, b.gamma, b.beta, b.ln, kDim);
  softmax<<<kDim, kRowThreads, 0, stream>>>(b.ln, b.sm, kDim);
  residual_add<<<kDim * kDim / 256, 256, 0, stream>>>(b.x, b.sm, b.out, kDim * kDim);
  CUDA_CHECK(cudaGetLastError());
}

// Compares one output buffer with its reference, within `tolerance` x max(1, |want|); prints the
// first mismatches. Returns the count.
static int check(const char *what, const float *device, const std::vector<double> &want,
                 double tolerance, int device_id) {
  std::vector<float> got(want.size());
  CUDA_CHECK(cudaMemcpy(got.data(), device, sizeof(float) * got.size(), cudaMemcpyDeviceToHost));
  int wrong = 0;
  double worst = 0.0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double err = std::fabs(got[i] - want[i]);
    worst = std::max(worst, err);
    if (!(err <= tolerance * std::max(1.0, std::fabs(want[i]))) && wrong++ < 3)
      std::fprintf(stderr, "loop: device %d: %s[%zu][%zu] = %.9g, want %.9g\n", device_id, what,
                   i / kDim, i % kDim, double(got[i]), want[i]);
  }
  std::printf("loop: device %d: %-12s %s (max abs error %.3g)\n", device_id, what,
              wrong ? "FAIL" : "PASS", worst);
  return wrong;
}

static int check_layer(const LayerBuffers &b, const Problem &p, int device_id) {
  // Tolerances: about 10x the float error of the same arithmetic on the CPU (matmul is exact).
  return check("matmul", b.h, p.h, 0.0, device_id) +
         check("layernorm", b.ln, p.ln, 1e-5, device_id) +
         check("softmax", b.sm, p.sm, 1e-6, device_id) +
         check("residual_add", b.out, p.out, 1e-5, device_id);
}

enum class Mode { single, streams2, graph, gpus2 };

struct LoopResult {
  double event_ms = 0.0; // first to last enqueued work, CUDA events
  double host_ms = 0.0;  // first enqueue to the end of the final synchronisation, host clock
  long long launches = 0;
  int wrong = 0;
};

// Sets up `device`, runs one warm-up iteration and `iterations` timed ones, checks the outputs.
static LoopResult run_on_device(int device, Mode mode, int iterations, const Problem &p) {
  CUDA_CHECK(cudaSetDevice(device));
  const int chains = mode == Mode::streams2 ? 2 : 1;
  std::vector<LayerBuffers> buffers;
  std::vector<cudaStream_t> streams(chains);
  for (int c = 0; c < chains; ++c) {
    buffers.push_back(upload(p));
    CUDA_CHECK(cudaStreamCreateWithFlags(&streams[c], cudaStreamNonBlocking));
  }
  cudaGraphExec_t replay = nullptr;
  if (mode == Mode::graph) {
    cudaGraph_t graph = nullptr;
    CUDA_CHECK(cudaStreamBeginCapture(streams[0], cudaStreamCaptureModeGlobal));
    enqueue_layer(buffers[0], streams[0]);
    CUDA_CHECK(cudaStreamEndCapture(streams[0], &graph));
    CUDA_CHECK(cudaGraphInstantiate(&replay, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));
  }
  auto iterate = [&](int i) {
    if (mode == Mode::graph)
      CUDA_CHECK(cudaGraphLaunch(replay, streams[0]));
    else
      enqueue_layer(buffers[i % chains], streams[i % chains]);
  };
  for (int c = 0; c < chains; ++c) // warm-up: module loading, first-launch costs
    iterate(c);
  CUDA_CHECK(cudaDeviceSynchronize());

  cudaEvent_t start, stop, joined;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventCreate(&joined));
  const auto host_start = std::chrono::steady_clock::now();
  CUDA_CHECK(cudaEventRecord(start, streams[0]));
  for (int c = 1; c < chains; ++c)
    CUDA_CHECK(cudaStreamWaitEvent(streams[c], start, 0));
  for (int i = 0; i < iterations; ++i)
    iterate(i);
  for (int c = 1; c < chains; ++c) {
    CUDA_CHECK(cudaEventRecord(joined, streams[c]));
    CUDA_CHECK(cudaStreamWaitEvent(streams[0], joined, 0));
  }
  CUDA_CHECK(cudaEventRecord(stop, streams[0]));
  CUDA_CHECK(cudaEventSynchronize(stop));
  CUDA_CHECK(cudaDeviceSynchronize());
  LoopResult r;
  r.host_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - host_start)
          .count();
  float event_ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&event_ms, start, stop));
  r.event_ms = event_ms;
  r.launches = (long long)(iterations + chains) * kKernelsPerIteration;

  for (const LayerBuffers &b : buffers)
    r.wrong += check_layer(b, p, device);
  for (cudaEvent_t e : {start, stop, joined})
    CUDA_CHECK(cudaEventDestroy(e));
  if (replay)
    CUDA_CHECK(cudaGraphExecDestroy(replay));
  for (int c = 0; c < chains; ++c) {
    CUDA_CHECK(cudaStreamDestroy(streams[c]));
    release(buffers[c]);
  }
  return r;
}

// The process's peak resident set so far, in kB (0 where /proc is unavailable).
static long peak_rss_kb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0)
      return std::atol(line.c_str() + 6);
  return 0;
}

// Registered before the first launch, so it runs after the tracer's exit work (handlers run in
// reverse order of registration) and the peak includes writing the traces.
static void print_peak_rss() {
  std::printf("loop: peak_rss_kb=%ld (VmHWM at exit)\n", peak_rss_kb());
}

int main(int argc, char **argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 2000;
  const char *mode_name = argc > 2 ? argv[2] : "single";
  Mode mode;
  if (std::strcmp(mode_name, "single") == 0)
    mode = Mode::single;
  else if (std::strcmp(mode_name, "streams2") == 0)
    mode = Mode::streams2;
  else if (std::strcmp(mode_name, "graph") == 0)
    mode = Mode::graph;
  else if (std::strcmp(mode_name, "gpus2") == 0)
    mode = Mode::gpus2;
  else
    mode_name = nullptr;
  if (!mode_name || iterations < 1) {
    std::fprintf(stderr,
                 "usage: %s [iterations >= 1, default 2000] "
                 "[single|streams2|graph|gpus2]\n",
                 argv[0]);
    return 2;
  }
  std::atexit(print_peak_rss);
#ifdef CUTRACE_TRACED
  std::printf("loop: traced build\n");
#else
  std::printf("loop: plain build\n");
#endif

  const Problem p = make_problem();
  int devices = 0;
  CUDA_CHECK(cudaGetDeviceCount(&devices));
  if (mode == Mode::gpus2 && devices < 2)
    std::printf("loop: gpus2: only %d device exists, running on device 0 alone\n", devices);
  devices = mode == Mode::gpus2 ? std::min(devices, 2) : 1;

  std::vector<LoopResult> results(devices);
  const auto host_start = std::chrono::steady_clock::now();
  if (devices == 1) {
    results[0] = run_on_device(0, mode == Mode::gpus2 ? Mode::single : mode, iterations, p);
  } else {
    std::vector<std::thread> threads;
    for (int d = 0; d < devices; ++d)
      threads.emplace_back([&, d] { results[d] = run_on_device(d, Mode::single, iterations, p); });
    for (std::thread &t : threads)
      t.join();
  }
  const double run_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - host_start)
          .count();

  long long launches = 0;
  int wrong = 0;
  double event_ms = 0.0, host_ms = 0.0;
  for (const LoopResult &r : results) {
    launches += r.launches;
    wrong += r.wrong;
    event_ms = std::max(event_ms, r.event_ms);
    host_ms = std::max(host_ms, r.host_ms);
  }
  // One line for scripts: key=value pairs; the slowest device's loop where there are two.
  std::printf("loop: mode=%s devices=%d iterations=%d launches=%lld loop_event_ms=%.3f "
              "loop_host_ms=%.3f us_per_iteration=%.3f run_ms=%.3f result=%s\n",
              mode_name, devices, iterations, launches, event_ms, host_ms,
              1000.0 * host_ms / iterations, run_ms, wrong ? "FAIL" : "PASS");
  std::fflush(stdout);
  return wrong ? 1 : 0;
}
