// What each marker adds to the ranges around it, on the GPU at hand: thread 0 of one CTA per SM
// records kReps ranges of each shape below, and the program prints each shape's recorded range
// length (median, min, max, in cycles). With a range's code measured by two raw clock64 reads in
// a kernel that records nothing (`code`), the difference is what the markers cost.
//   empty        a range with nothing inside
//   instants_k   a range around k instants (k = 1, 2, 4)
//   nested       a range around one empty range
//   explicit     TRACE_RANGE_START / TRACE_RANGE_END with nothing between
//   raw_pair     two raw clock64 reads with nothing between (no marker)
//   spin_N       a range around a spin of N cycles; code_N the same code between raw reads
// Built by test/device/gpu_marker_cost.sh (trace-rewrite --traced here, nvcc on the device).
#include <cutrace/trace.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

constexpr int kReps = 64;

__device__ __forceinline__ long long spin_for(long long cycles) {
  const long long t0 = clock64();
  long long t1 = t0;
  while (t1 - t0 < cycles)
    t1 = clock64();
  return t1 - t0;
}

__global__ void empty_ranges() {
  TRACE_GROUP("block", 0);
  if (threadIdx.x != 0)
    return;
  for (int i = 0; i < kReps; ++i) {
    TRACE_RANGE("empty", "main");
  }
}

__global__ void instant_ranges(int k) {
  TRACE_GROUP("block", 0);
  if (threadIdx.x != 0)
    return;
  for (int i = 0; i < kReps; ++i) {
    TRACE_RANGE("instants", "main");
    TRACE_RECORD_IF(k >= 1, "a", 0, "marks");
    TRACE_RECORD_IF(k >= 2, "b", 0, "marks");
    TRACE_RECORD_IF(k >= 3, "c", 0, "marks");
    TRACE_RECORD_IF(k >= 4, "d", 0, "marks");
  }
}

__global__ void nested_ranges() {
  TRACE_GROUP("block", 0);
  if (threadIdx.x != 0)
    return;
  for (int i = 0; i < kReps; ++i) {
    TRACE_RANGE("outer", "main");
    {
      TRACE_RANGE("inner", "inner");
    }
  }
}

__global__ void explicit_ranges() {
  TRACE_GROUP("block", 0);
  if (threadIdx.x != 0)
    return;
  for (int i = 0; i < kReps; ++i) {
    auto tok = TRACE_RANGE_START("explicit", "main");
    TRACE_RANGE_END(tok);
  }
}

__global__ void spin_ranges(long long *truth, int cycles) {
  TRACE_GROUP("block", 0);
  if (threadIdx.x != 0)
    return;
  for (int i = 0; i < kReps; ++i) {
    TRACE_RANGE("spin", "main");
    truth[blockIdx.x * kReps + i] = spin_for(cycles);
  }
}

// The same code as spin_ranges' range body, between two raw clock reads; and the raw pair alone.
__global__ void spin_code(long long *truth, long long *code, int cycles) {
  if (threadIdx.x != 0)
    return;
  for (int i = 0; i < kReps; ++i) {
    const long long t0 = clock64();
    if (cycles >= 0)
      truth[blockIdx.x * kReps + i] = spin_for(cycles);
    const long long t1 = clock64();
    code[blockIdx.x * kReps + i] = t1 - t0;
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

static void print(const char *name, std::vector<long long> v) {
  if (v.empty()) {
    std::printf("%s,none\n", name);
    return;
  }
  std::sort(v.begin(), v.end());
  std::printf("%s,%lld,%lld,%lld,%zu\n", name, v[v.size() / 2], v.front(), v.back(), v.size());
}

#ifdef CUTRACE_TRACED_H
// Recorded lengths (cycles) of the slices named `name` in one launch's trace.
static std::vector<long long> lengths(const cutrace::Trace &t, const char *name) {
  std::vector<long long> out;
  for (const cutrace::Row &row : t.rows)
    for (const cutrace::Slice &s : row.slices)
      if (s.name == name && !s.incomplete)
        out.push_back((long long)(s.end_cycles - s.begin_cycles));
  return out;
}
#endif

int main() {
#ifdef CUTRACE_TRACED_H
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# %s, %d SMs\nshape,median,min,max,n\n", prop.name, prop.multiProcessorCount);
  const dim3 grid(prop.multiProcessorCount), block(128);
  const size_t n = size_t(grid.x) * kReps;
  long long *truth, *code;
  CHECK(cudaMalloc(&truth, sizeof(long long) * n));
  CHECK(cudaMalloc(&code, sizeof(long long) * n));
  std::vector<long long> host(n);
  auto recorded = [&](const cutrace::KernelMap &map, auto launch, const char *name,
                      const char *label) {
    cutrace::Recorder recorder(map, grid, block);
    for (int warm = 0; warm < 2; ++warm)
      launch(recorder.slots());
    cudaDeviceSynchronize();
    print(label, lengths(recorder.decode(), name));
  };
  auto raw = [&](int cycles, const char *label) {
    spin_code<<<grid, block>>>(truth, code, cycles);
    spin_code<<<grid, block>>>(truth, code, cycles);
    cudaDeviceSynchronize();
    cudaMemcpy(host.data(), code, sizeof(long long) * n, cudaMemcpyDeviceToHost);
    print(label, host);
  };
  recorded(cutrace_map::empty_ranges,
           [&](cutrace::Slots *s) { empty_ranges_cutrace_traced<<<grid, block>>>(s); }, "empty",
           "empty");
  for (int k : {1, 2, 4}) {
    char label[32];
    std::snprintf(label, sizeof label, "instants_%d", k);
    recorded(cutrace_map::instant_ranges,
             [&](cutrace::Slots *s) { instant_ranges_cutrace_traced<<<grid, block>>>(k, s); },
             "instants", label);
  }
  recorded(cutrace_map::nested_ranges,
           [&](cutrace::Slots *s) { nested_ranges_cutrace_traced<<<grid, block>>>(s); }, "outer",
           "nested_outer");
  recorded(cutrace_map::nested_ranges,
           [&](cutrace::Slots *s) { nested_ranges_cutrace_traced<<<grid, block>>>(s); }, "inner",
           "nested_inner");
  recorded(cutrace_map::explicit_ranges,
           [&](cutrace::Slots *s) { explicit_ranges_cutrace_traced<<<grid, block>>>(s); },
           "explicit", "explicit");
  raw(-1, "raw_pair");
  for (int cycles : {1000, 2000, 10000}) {
    char label[32];
    std::snprintf(label, sizeof label, "spin_%d", cycles);
    recorded(cutrace_map::spin_ranges,
             [&](cutrace::Slots *s) { spin_ranges_cutrace_traced<<<grid, block>>>(truth, cycles, s); },
             "spin", label);
    std::snprintf(label, sizeof label, "code_%d", cycles);
    raw(cycles, label);
  }
  CHECK(cudaDeviceSynchronize());
#endif
  return 0;
}
