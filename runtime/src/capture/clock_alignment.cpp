#include "clock_alignment.h"

#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <optional>
#include <string>
#include <thread>

namespace cutrace {

namespace {

// The PTX fallback of <cutrace/clock_probe.h>'s clock_probe, the same rules: waits for request
// n in flag[0], stamps %globaltimer into out[n], acknowledges n in flag[1]; a request not made
// within 200 ms ends it (a profiler that runs kernels to their end before the launch returns).
// PTX, loaded at run time, so the runtime library needs no device compiler and runs on any GPU
// the driver can JIT for.
constexpr const char *kPingPongPtx = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry cutrace_clock_pingpong(.param .u64 flag, .param .u64 out, .param .u32 rounds)
{
  .reg .u64 %rd<8>;
  .reg .u32 %r<8>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [flag];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [rounds];
  mov.u32 %r2, 1;
LOOP:
  setp.gt.u32 %p1, %r2, %r1;
  @%p1 bra DONE;
  mov.u64 %rd6, %globaltimer;
WAIT:
  mov.u64 %rd3, %globaltimer;
  sub.u64 %rd7, %rd3, %rd6;
  setp.gt.u64 %p3, %rd7, 200000000;
  @%p3 bra DONE;
  ld.volatile.global.u32 %r3, [%rd1];
  setp.lt.u32 %p2, %r3, %r2;
  @%p2 bra WAIT;
  mov.u64 %rd3, %globaltimer;
  mul.wide.u32 %rd4, %r2, 8;
  add.u64 %rd5, %rd2, %rd4;
  st.volatile.global.u64 [%rd5], %rd3;
  membar.sys;
  st.volatile.global.u32 [%rd1+4], %r2;
  membar.sys;
  add.u32 %r2, %r2, 1;
  bra LOOP;
DONE:
  ret;
}
)";

constexpr uint32_t kRounds = 64;
constexpr const char *kUnanswerable =
    "the clock probe kernel ended before it was asked (a profiler that runs each kernel to its "
    "end before the launch returns, such as Nsight Compute)";

ClockAlignment failed(std::string why) {
  ClockAlignment a;
  a.why_not = std::move(why);
  (void)cudaGetLastError(); // leave no error for the program's own checks
  return a;
}

std::atomic<const void *> offered_probe{nullptr};

// The PTX probe, loaded (JIT-compiled) once per process and kept: the measurement at exit must
// not load anything. Measurements run one at a time.
const void *ptx_probe() {
  static const void *kernel = [] {
    cudaLibrary_t library = nullptr;
    cudaKernel_t k = nullptr;
    if (cudaLibraryLoadData(&library, kPingPongPtx, nullptr, nullptr, 0, nullptr, nullptr, 0) !=
            cudaSuccess ||
        cudaLibraryGetKernel(&k, library, "cutrace_clock_pingpong") != cudaSuccess)
      return (const void *)nullptr;
    return (const void *)k;
  }();
  return kernel;
}

} // namespace

bool detail::offer_clock_probe(const void *kernel) {
  const void *none = nullptr;
  offered_probe.compare_exchange_strong(none, kernel);
  return true;
}

uint64_t host_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

cudaError_t create_probe_stream(cudaStream_t *stream) {
  int least = 0, greatest = 0;
  if (cudaDeviceGetStreamPriorityRange(&least, &greatest) != cudaSuccess) {
    (void)cudaGetLastError();
    greatest = 0; // the default priority
  }
  return cudaStreamCreateWithPriority(stream, cudaStreamNonBlocking, greatest);
}

namespace {

// Starts the program's own probe on `stream`, else the PTX one; the reason when neither runs.
std::optional<std::string> launch_probe(void **args, cudaStream_t stream) {
  std::string why = "no clock probe kernel";
  if (const void *compiled = offered_probe.load()) {
    const cudaError_t err = cudaLaunchKernel(compiled, dim3(1), dim3(1), args, 0, stream);
    if (err == cudaSuccess)
      return std::nullopt;
    why = std::string("the compiled probe: ") + cudaGetErrorString(err);
    (void)cudaGetLastError();
  }
  const void *ptx = ptx_probe();
  if (ptx == nullptr)
    return why + "; the PTX probe could not be loaded";
  const cudaError_t err = cudaLaunchKernel(ptx, dim3(1), dim3(1), args, 0, stream);
  if (err == cudaSuccess)
    return std::nullopt;
  return why + "; the PTX probe: " + cudaGetErrorString(err);
}

// The rounds with a running probe: the shortest round trip gives the offset and its bound.
ClockAlignment ping_pong(volatile uint32_t *flag, volatile uint64_t *out, cudaStream_t stream) {
  ClockAlignment best = failed("the clock probe kernel did not answer within 2 s");
  uint64_t best_trip = UINT64_MAX;
  for (uint32_t n = 1; n <= kRounds; ++n) {
    // The first round also waits for the kernel to start on a GPU that may be busy.
    const uint64_t h0 = host_now_ns(), deadline = h0 + 2000000000ull;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    flag[0] = n;
    bool ended = false;
    while (flag[1] < n && host_now_ns() < deadline && !ended) {
      // The probe gives up after 200 ms without a request (a profiler that runs it to its end
      // before the launch returns): an ended stream is no answer. Asked only after 1 ms, so a
      // normal round trip is timed without the query.
      ended = host_now_ns() - h0 > 1000000 && cudaStreamQuery(stream) == cudaSuccess;
    }
    if (flag[1] < n) {
      if (ended && !best.aligned)
        best.why_not = kUnanswerable;
      flag[0] = kRounds; // lets the kernel run through its remaining rounds and exit
      break;
    }
    const uint64_t trip = host_now_ns() - h0;
    if (trip < best_trip) {
      best_trip = trip;
      best.aligned = true;
      best.why_not.clear();
      best.host_minus_gpu_ns = int64_t(h0 + trip / 2) - int64_t(out[n]);
      best.error_ns = (trip + 1) / 2;
    }
  }
  return best;
}

// The probe cannot be answered in this process (a profiler runs each kernel to its end before
// the launch returns): measured once, it is not launched again, at exit neither, where Nsight
// Compute ends the program when it cannot profile it.
std::atomic<bool> probe_unanswerable{false};

} // namespace

ClockAlignment measure_clock_alignment() {
  if (probe_unanswerable.load())
    return failed(kUnanswerable);
  // Allocated once and never freed: cudaFreeHost would synchronize the device mid-run.
  // Measurements run one at a time (the drain thread, then the exit hook).
  static void *mapped = nullptr;
  const size_t bytes = 64 + 8 * (kRounds + 1);
  if (mapped == nullptr &&
      cudaHostAlloc(&mapped, bytes, cudaHostAllocMapped | cudaHostAllocPortable) != cudaSuccess) {
    mapped = nullptr;
    return failed("no mapped host memory for the clock probe");
  }
  auto *flag = static_cast<volatile uint32_t *>(mapped);
  auto *out = reinterpret_cast<volatile uint64_t *>(static_cast<char *>(mapped) + 64);
  flag[0] = flag[1] = 0;
  void *dflag = nullptr;
  cudaStream_t stream = nullptr;
  if (cudaHostGetDevicePointer(&dflag, mapped, 0) != cudaSuccess ||
      create_probe_stream(&stream) != cudaSuccess)
    return failed("the clock probe could not be set up");
  void *dout = static_cast<char *>(dflag) + 64;
  uint32_t rounds = kRounds;
  void *args[] = {&dflag, &dout, &rounds};
  if (std::optional<std::string> why = launch_probe(args, stream)) {
    cudaStreamDestroy(stream);
    return failed("the clock probe kernel could not be launched (" + *why + ")");
  }
  const ClockAlignment best = ping_pong(flag, out, stream);
  if (!best.aligned && best.why_not == kUnanswerable)
    probe_unanswerable.store(true);
  // The probe has been told to finish; a GPU that never ran it must not hang the caller (the
  // exit hook among them): after 2 s its stream is left behind.
  const uint64_t deadline = host_now_ns() + 2000000000ull;
  cudaError_t done;
  while ((done = cudaStreamQuery(stream)) == cudaErrorNotReady && host_now_ns() < deadline)
    std::this_thread::yield();
  if (done != cudaErrorNotReady)
    cudaStreamDestroy(stream);
  (void)cudaGetLastError();
  return best;
}

} // namespace cutrace
