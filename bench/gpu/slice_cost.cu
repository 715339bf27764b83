// Per-event device cost of a per-warp row (TRACE_GROUPS("warp", 32): every warp's first lane
// writes its own row) next to today's per-CTA row (TRACE_GROUP("cta", 0)), measured in one run
// of the traced build. Each kernel is the loop of bench/gpu/event_cost.cu: a fixed amount of
// dependent FMA work between events, 1000 events per row, 128 threads per CTA, 1 and 4 CTAs per
// SM. Every kernel's twin is launched directly with a buffer of its own (cutrace::Recorder), and
// the original kernel (the stripped code, which the traced build keeps) is the baseline, all
// taking turns within each repetition. Variants:
//   stripped      the original kernel (identical machine code to the stripped build)
//   per_cta       TRACE_GROUP("cta", 0): one writer per CTA
//   per_warpgroup TRACE_GROUPS("warpgroup", 128): one slice per CTA of 128 threads
//   per_warp      TRACE_GROUPS("warp", 32): four writers per CTA
//   per_warp_if   the same with TRACE_RECORD_IF(e % 2 == 0, ...): half the events stored
//   per_warp_off  the per-warp twin given no buffer (null slots): predicates only, no stores
//   helper_inline   per_cta's record written in a __forceinline__ __device__ helper
//   helper_noinline per_cta's record written in a __noinline__ __device__ helper (the group
//                   passed by reference to a real call)
// Output: CSV lines `slice_cost,<variant>,<fmas>,<ctas per SM>,<events per row>,<median ms>`,
// then `slice_rows,<variant>,<rows>,<records stored>` from decoding each buffer once.
// Built and run by test/device/h200_issue14.sh (trace-rewrite --traced, then nvcc).
#include <cutrace/trace.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

constexpr int kEvents = 1000; // events per row
constexpr int kThreads = 128;
constexpr int kReps = 21;

template <int Fmas> __device__ __forceinline__ float work(float a) {
#pragma unroll
  for (int i = 0; i < Fmas; ++i)
    a = fmaf(a, 1.000001f, 0.5f);
  return a;
}

template <int Fmas> __global__ void per_cta(float *out, int events, float seed) {
  TRACE_GROUP("cta", 0);
  float a = seed + threadIdx.x;
  for (int e = 0; e < events; ++e) {
    TRACE_RECORD("event", e);
    a = work<Fmas>(a);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a;
}

template <int Fmas> __global__ void per_warpgroup(float *out, int events, float seed) {
  TRACE_GROUPS("warpgroup", 128);
  float a = seed + threadIdx.x;
  for (int e = 0; e < events; ++e) {
    TRACE_RECORD("event", e);
    a = work<Fmas>(a);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a;
}

template <int Fmas> __global__ void per_warp(float *out, int events, float seed) {
  TRACE_GROUPS("warp", 32);
  float a = seed + threadIdx.x;
  for (int e = 0; e < events; ++e) {
    TRACE_RECORD("event", e);
    a = work<Fmas>(a);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a;
}

template <int Fmas> __global__ void per_warp_if(float *out, int events, float seed) {
  TRACE_GROUPS("warp", 32);
  float a = seed + threadIdx.x;
  for (int e = 0; e < events; ++e) {
    TRACE_RECORD_IF(e % 2 == 0, "event", e);
    a = work<Fmas>(a);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a;
}

__device__ __forceinline__ void note_inline(int e) { TRACE_RECORD("event", e); }
__device__ __noinline__ void note_noinline(int e) { TRACE_RECORD("event", e); }

template <int Fmas> __global__ void helper_inline(float *out, int events, float seed) {
  TRACE_GROUP("cta", 0);
  float a = seed + threadIdx.x;
  for (int e = 0; e < events; ++e) {
    note_inline(e);
    a = work<Fmas>(a);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a;
}

template <int Fmas> __global__ void helper_noinline(float *out, int events, float seed) {
  TRACE_GROUP("cta", 0);
  float a = seed + threadIdx.x;
  for (int e = 0; e < events; ++e) {
    note_noinline(e);
    a = work<Fmas>(a);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a;
}

namespace {

#define CHECK(call)                                                                                \
  do {                                                                                             \
    cudaError_t err_ = (call);                                                                     \
    if (err_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));           \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

#ifdef CUTRACE_TRACED_H
struct Variant {
  const char *name;
  std::function<void()> launch;
};

// Median ms of kReps launches of each variant, after one warm-up launch of each; the variants
// take turns within each repetition, so drift affects them alike.
std::vector<double> interleaved_medians(const std::vector<Variant> &variants) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (const Variant &v : variants)
    v.launch();
  std::vector<std::vector<float>> ms(variants.size(), std::vector<float>(kReps));
  for (int r = 0; r < kReps; ++r)
    for (size_t i = 0; i < variants.size(); ++i) {
      CHECK(cudaEventRecord(start));
      variants[i].launch();
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      CHECK(cudaEventElapsedTime(&ms[i][r], start, stop));
    }
  CHECK(cudaGetLastError());
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  std::vector<double> medians;
  for (auto &v : ms) {
    std::sort(v.begin(), v.end());
    medians.push_back(v[kReps / 2]);
  }
  return medians;
}

// Rows and stored records of a buffer as decoded now (a check that the twin really recorded).
void report_rows(const char *variant, cutrace::Recorder &recorder) {
  const cutrace::Trace trace = recorder.decode();
  uint64_t stored = 0;
  for (const cutrace::Row &row : trace.rows)
    stored += row.stored;
  std::printf("slice_rows,%s,%zu,%llu,%s\n", variant, trace.rows.size(), (unsigned long long)stored,
              trace.ok() ? "ok" : trace.problems.front().c_str());
}

template <int Fmas> void runSize(dim3 grid, int ctas_per_sm, float *out, bool report) {
  const dim3 block(kThreads);
  int events = kEvents;
  float seed = 1.0f;
  // The twins are launched directly, not through the launch routing of a traced build (this
  // branch is not rewritten): every launch records into the variant's own buffer.
  cutrace::Recorder cta_rec(cutrace_map::per_cta, grid, block);
  cutrace::Recorder warpgroup_rec(cutrace_map::per_warpgroup, grid, block);
  cutrace::Recorder warp_rec(cutrace_map::per_warp, grid, block);
  cutrace::Recorder warp_if_rec(cutrace_map::per_warp_if, grid, block);
  cutrace::Recorder inline_rec(cutrace_map::helper_inline, grid, block);
  cutrace::Recorder noinline_rec(cutrace_map::helper_noinline, grid, block);
  cutrace::Slots *cta = cta_rec.slots(), *warpgroup = warpgroup_rec.slots(),
                 *warp = warp_rec.slots(), *warp_if = warp_if_rec.slots(),
                 *inlined = inline_rec.slots(), *called = noinline_rec.slots();
  const std::vector<Variant> variants = {
      {"stripped", [&] { per_cta<Fmas><<<grid, block>>>(out, events, seed); }},
      {"per_cta", [&] { per_cta_cutrace_traced<Fmas><<<grid, block>>>(out, events, seed, cta); }},
      {"per_warpgroup",
       [&] { per_warpgroup_cutrace_traced<Fmas><<<grid, block>>>(out, events, seed, warpgroup); }},
      {"per_warp",
       [&] { per_warp_cutrace_traced<Fmas><<<grid, block>>>(out, events, seed, warp); }},
      {"per_warp_if",
       [&] { per_warp_if_cutrace_traced<Fmas><<<grid, block>>>(out, events, seed, warp_if); }},
      {"per_warp_off",
       [&] { per_warp_cutrace_traced<Fmas><<<grid, block>>>(out, events, seed, nullptr); }},
      {"helper_inline",
       [&] { helper_inline_cutrace_traced<Fmas><<<grid, block>>>(out, events, seed, inlined); }},
      {"helper_noinline",
       [&] { helper_noinline_cutrace_traced<Fmas><<<grid, block>>>(out, events, seed, called); }},
  };
  const std::vector<double> ms = interleaved_medians(variants);
  for (size_t i = 0; i < variants.size(); ++i)
    std::printf("slice_cost,%s,%d,%d,%d,%.6f\n", variants[i].name, Fmas, ctas_per_sm, kEvents,
                ms[i]);
  if (report) {
    report_rows("per_cta", cta_rec);
    report_rows("per_warpgroup", warpgroup_rec);
    report_rows("per_warp", warp_rec);
    report_rows("per_warp_if", warp_if_rec);
    report_rows("helper_inline", inline_rec);
    report_rows("helper_noinline", noinline_rec);
  }
}
#endif

} // namespace

int main() {
#ifdef CUTRACE_TRACED_H
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("slice_cost,device,%s,%d SMs\n", prop.name, prop.multiProcessorCount);
  for (int ctas_per_sm : {1, 4}) {
    const dim3 grid(prop.multiProcessorCount * ctas_per_sm);
    float *out;
    CHECK(cudaMalloc(&out, size_t(grid.x) * kThreads * sizeof(float)));
    runSize<8>(grid, ctas_per_sm, out, ctas_per_sm == 1);
    runSize<64>(grid, ctas_per_sm, out, false);
    runSize<512>(grid, ctas_per_sm, out, false);
    CHECK(cudaFree(out));
  }
  return 0;
#else
  std::fprintf(stderr, "slice_cost: build it traced (trace-rewrite --traced): it times twins\n");
  return 2;
#endif
}
