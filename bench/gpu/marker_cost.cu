// What each marker adds to the ranges around it, and what the decoder leaves of it once it takes
// out the marker cost measured at run start (docs/FORMAT.md, "Marker cost"), on the GPU at hand:
// thread 0 of one CTA per SM records kReps ranges of each shape below, and the program prints
// each shape's recorded range length as recorded (`raw`) and with the marker cost taken out
// (`corrected`): median, min, max in cycles.
//   empty        a range with nothing inside (its corrected length should be 0)
//   instants_k   a range around k instants (k = 1, 2, 4)
//   nested       a range around one empty range
//   explicit     TRACE_RANGE_START / TRACE_RANGE_END with nothing between
//   spin_N       a range around a clock64 spin of N cycles
//   chain_N      a range around a dependent chain of N/4 FMAs (branch-free, unrolled) and the
//                store of its result; `code` is the same code in a kernel that records nothing,
//                between two raw clock64 reads, less two raw reads with nothing between
//   chain_N_4marks   the chain in 4 parts with an instant after each, inside the range
//   chain_N_4nested  the chain in 4 parts, each in its own inner range (2 and 8 parts at 1,000)
// Then one routed launch of the traced kernel (a whole run: its file's DEV section holds the
// probe; trace-view --summary prints the cost). Built by test/device/gpu_marker_cost.sh
// (trace-rewrite --traced here, nvcc on the device).
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

// A dependent chain of kFmas FMAs: about 4 cycles each on sm_90, no branch inside.
template <int kFmas> __device__ __forceinline__ float chain(float x) {
#pragma unroll
  for (int i = 0; i < kFmas; ++i)
    x = fmaf(x, 1.0001f, 0.5f);
  return x;
}

// kParts chains of kFmas / kParts FMAs, each in its own `part` range (kInner) or followed by an
// instant (else), inside one `chain` range; the result stored inside it.
template <int kFmas, int kParts, bool kInner> __global__ void chain_ranges(float *out, float seed) {
  TRACE_GROUP("block", 0);
  if (threadIdx.x != 0)
    return;
  float x = seed + blockIdx.x;
#pragma unroll 1
  for (int i = 0; i < kReps; ++i) {
    TRACE_RANGE("chain", "main");
#pragma unroll
    for (int p = 0; p < kParts; ++p) {
      if constexpr (kInner) {
        TRACE_RANGE("part", "inner");
        x = chain<kFmas / kParts>(x);
      } else {
        x = chain<kFmas / kParts>(x);
        if (kParts > 1) {
          TRACE_RECORD("mark", 0, "marks");
        }
      }
    }
    out[blockIdx.x * kReps + i] = x;
  }
}

// The same code between two raw clock64 reads, no marker (kFmas 0 and no store: the reads alone).
template <int kFmas, bool kStore> __global__ void chain_code(float *out, long long *code, float seed) {
  if (threadIdx.x != 0)
    return;
  float x = seed + blockIdx.x;
#pragma unroll 1
  for (int i = 0; i < kReps; ++i) {
    const long long t0 = clock64();
    x = chain<kFmas>(x);
    if (kStore)
      out[blockIdx.x * kReps + i] = x;
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

static long long median(std::vector<long long> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? -1 : v[v.size() / 2];
}

static void print(const char *name, std::vector<long long> raw, std::vector<long long> corrected,
                  long long code = -1) {
  if (raw.empty() || corrected.size() != raw.size()) {
    std::printf("%s,none\n", name);
    return;
  }
  std::sort(raw.begin(), raw.end());
  std::sort(corrected.begin(), corrected.end());
  std::printf("%s,%lld,%lld,%lld,%lld,%lld,%lld,%zu", name, raw[raw.size() / 2], raw.front(),
              raw.back(), corrected[corrected.size() / 2], corrected.front(), corrected.back(),
              raw.size());
  if (code > 0)
    std::printf(",%lld,%+.2f%%,%+.2f%%", code,
                100.0 * (double(raw[raw.size() / 2]) / double(code) - 1),
                100.0 * (double(corrected[corrected.size() / 2]) / double(code) - 1));
  std::printf("\n");
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
  const cutrace::MarkerCost cost = cutrace::measure_marker_cost();
  std::printf("# %s, %d SMs; marker cost (cycles): range begin %.0f, range end %.0f, event %.0f\n",
              prop.name, prop.multiProcessorCount, cost.range_begin, cost.range_end, cost.event);
  std::printf("shape,raw_median,raw_min,raw_max,corrected_median,corrected_min,corrected_max,n,"
              "code,raw_vs_code,corrected_vs_code\n");
  const dim3 grid(prop.multiProcessorCount), block(128);
  const size_t n = size_t(grid.x) * kReps;
  long long *truth, *code;
  float *out;
  CHECK(cudaMalloc(&truth, sizeof(long long) * n));
  CHECK(cudaMalloc(&code, sizeof(long long) * n));
  CHECK(cudaMalloc(&out, sizeof(float) * n));
  std::vector<long long> host(n);
  cutrace::DecodeOptions corrected;
  corrected.marker_cost = cost;
  auto recorded = [&](const cutrace::KernelMap &map, auto launch, const char *name,
                      const char *label, long long code_cycles = -1) {
    cutrace::Recorder recorder(map, grid, block);
    for (int warm = 0; warm < 2; ++warm)
      launch(recorder.slots());
    cudaDeviceSynchronize();
    print(label, lengths(recorder.decode(), name), lengths(recorder.decode(corrected), name),
          code_cycles);
  };
  // Median raw-read length of a plain kernel's chain (launched twice, the second kept).
  auto raw = [&](auto launch) {
    launch();
    launch();
    cudaDeviceSynchronize();
    cudaMemcpy(host.data(), code, sizeof(long long) * n, cudaMemcpyDeviceToHost);
    return median(host);
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
  for (int cycles : {1000, 2000, 10000}) {
    char label[32];
    std::snprintf(label, sizeof label, "spin_%d", cycles);
    recorded(cutrace_map::spin_ranges,
             [&](cutrace::Slots *s) { spin_ranges_cutrace_traced<<<grid, block>>>(truth, cycles, s); },
             "spin", label);
  }
  const long long reads = raw([&] { chain_code<0, false><<<grid, block>>>(out, code, 1.0f); });
  std::printf("# two raw clock64 reads with nothing between: %lld cycles\n", reads);
  // chain_N_P_marks: P parts with an instant after each; chain_N_P_nested: P inner ranges.
#define CHAIN(FMAS, PARTS, INNER, LABEL)                                                           \
  recorded(                                                                                        \
      cutrace_map::chain_ranges,                                                                   \
      [&](cutrace::Slots *s) {                                                                     \
        chain_ranges_cutrace_traced<FMAS, PARTS, INNER><<<grid, block>>>(out, 1.0f, s);            \
      },                                                                                           \
      "chain", LABEL, raw([&] { chain_code<FMAS, true><<<grid, block>>>(out, code, 1.0f); }) - reads)
  CHAIN(64, 1, false, "chain_256");
  CHAIN(250, 1, false, "chain_1000");
  CHAIN(2500, 1, false, "chain_10000");
  CHAIN(256, 4, false, "chain_1000_4marks");
  CHAIN(512, 4, false, "chain_2000_4marks");
  CHAIN(1024, 4, false, "chain_4000_4marks");
  CHAIN(2500, 4, false, "chain_10000_4marks");
  CHAIN(256, 2, true, "chain_1000_2nested");
  CHAIN(256, 4, true, "chain_1000_4nested");
  CHAIN(256, 8, true, "chain_1000_8nested");
  CHAIN(512, 4, true, "chain_2000_4nested");
  CHAIN(1024, 4, true, "chain_4000_4nested");
  CHAIN(2500, 4, true, "chain_10000_4nested");
#undef CHAIN
#endif
  // A whole run (outside the #ifdef, where trace-rewrite sees the launch and routes it): the
  // launch records into the run file, whose DEV section holds the probe.
  empty_ranges<<<4, 32>>>();
  CHECK(cudaDeviceSynchronize());
  return 0;
}
