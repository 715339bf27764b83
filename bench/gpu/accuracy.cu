// What a recorded range costs and how much it shifts what it measures: each CTA's thread 0 spins
// on clock64 for `cycles` cycles, kSpins times, with a TRACE_RANGE around every spin. The spin
// also measures itself with two raw clock64 reads just inside the range (`truth`, stored by
// every build), so the recorded length can be set against the time the code inside it took.
// `extra` = 1 adds an instant just before and just after each range (events around it).
// The traced build launches the twin (recording on) with a buffer of its own and the original
// kernel (recording off), and prints per configuration:
//   accuracy,<cycles>,<extra>,<median recorded - truth cycles>,<max |recorded - truth|>,
//            <median truth>,<ms off>,<ms on>,<events span us>
// `events span` is the launch as its events show it (first begin to last end), for a comparison
// with `ncu --metrics gpu__time_duration.sum` of the same launches (every launch of the twin
// here is configuration-ordered: 3 timed launches, then the recorded one, per configuration).
// Built by test/device/h23_recorder.sh (trace-rewrite --traced here, nvcc on the device).
#include <cutrace/trace.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

constexpr int kSpins = 64;
constexpr int kThreads = 128;

__device__ __forceinline__ long long spin_for(long long cycles) {
  const long long t0 = clock64();
  long long t1 = t0;
  while (t1 - t0 < cycles)
    t1 = clock64();
  return t1 - t0;
}

__global__ void spin_ranges(long long *truth, int cycles, int extra) {
  TRACE_GROUP("block", 0);
  if (threadIdx.x != 0)
    return;
  for (int i = 0; i < kSpins; ++i) {
    TRACE_RECORD_IF(extra != 0, "before", 0, "marks");
    {
      TRACE_RANGE("spin", "main");
      truth[blockIdx.x * kSpins + i] = spin_for(cycles);
    }
    TRACE_RECORD_IF(extra != 0, "after", 0, "marks");
  }
}

#define CHECK(x)                                                                                   \
  do {                                                                                             \
    cudaError_t err_ = (x);                                                                        \
    if (err_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));           \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

int main() {
#ifdef CUTRACE_TRACED_H
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const dim3 grid(prop.multiProcessorCount), block(kThreads);
  long long *truth;
  CHECK(cudaMalloc(&truth, sizeof(long long) * grid.x * kSpins));
  std::vector<long long> host(size_t(grid.x) * kSpins);
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  auto time_ms = [&](auto launch) {
    float ms = 0;
    cudaEventRecord(start);
    launch();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    cudaEventElapsedTime(&ms, start, stop);
    return double(ms);
  };
  for (int cycles : {1000, 10000, 100000}) {
    for (int extra : {0, 1}) {
      cutrace::Recorder recorder(cutrace_map::spin_ranges, grid, block);
      cutrace::Slots *slots = recorder.slots();
      std::vector<double> off, on;
      for (int r = 0; r < 3; ++r) {
        off.push_back(time_ms([&] { spin_ranges<<<grid, block>>>(truth, cycles, extra); }));
        on.push_back(time_ms(
            [&] { spin_ranges_cutrace_traced<<<grid, block>>>(truth, cycles, extra, slots); }));
      }
      spin_ranges_cutrace_traced<<<grid, block>>>(truth, cycles, extra, slots); // the recorded one
      CHECK(cudaDeviceSynchronize());
      CHECK(
          cudaMemcpy(host.data(), truth, sizeof(long long) * host.size(), cudaMemcpyDeviceToHost));
      const cutrace::Trace t = recorder.decode();
      std::vector<long long> diff, lengths;
      double first = 1e300, last = -1e300;
      for (const cutrace::Row &row : t.rows) {
        uint32_t i = 0;
        for (const cutrace::Slice &s : row.slices) {
          first = std::min(first, s.begin_ns), last = std::max(last, s.end_ns);
          if (s.name != "spin" || i >= kSpins)
            continue;
          const long long recorded = (long long)(s.end_cycles - s.begin_cycles);
          const long long inside = host[size_t(row.cta) * kSpins + i++];
          diff.push_back(recorded - inside);
          lengths.push_back(inside);
        }
        for (const cutrace::Instant &in : row.instants)
          first = std::min(first, in.ns), last = std::max(last, in.ns);
      }
      if (diff.empty() || !t.ok()) {
        std::printf("accuracy,%d,%d,FAIL,%s\n", cycles, extra,
                    t.ok() ? "no spin slices" : t.problems.front().c_str());
        continue;
      }
      long long worst = 0;
      for (long long d : diff)
        worst = std::max(worst, d < 0 ? -d : d);
      std::sort(diff.begin(), diff.end());
      std::sort(lengths.begin(), lengths.end());
      std::sort(off.begin(), off.end());
      std::sort(on.begin(), on.end());
      std::printf("accuracy,%d,%d,%lld,%lld,%lld,%.4f,%.4f,%.3f\n", cycles, extra,
                  diff[diff.size() / 2], worst, lengths[lengths.size() / 2], off[1], on[1],
                  (last - first) / 1000.0);
    }
  }
  return 0;
#else
  std::fprintf(stderr, "accuracy: build it traced (trace-rewrite --traced): it times twins\n");
  return 2;
#endif
}
