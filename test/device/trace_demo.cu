// A hand-written stand-in for `trace-rewrite --traced` output, to run on a real GPU: it calls
// device.h exactly as generated code does and checks the whole path device -> buffer -> host
// runtime -> .ctrace/.json (test/device/README.md). Expected counts are in run_demo.sh.
//
// pipeline: two groups ("block" lead 0, "producer" lead 32), RAII ranges, records, a token
//   range, an early return inside a range (CTAs 3 and 7), and an overflowing row (CTA 0, block).
// ticker: Clock::globaltimer, 3-D grid and block, lead thread 33, recorded in explicit mode.
#include <cutrace/device.h>
#include <cutrace/host.h>

#include <cstdio>
#include <cstdlib>

#include "../../examples/common/cuda_check.h"

// ---- what <file>.trace_map.h would hold ----
namespace demo_map {
inline constexpr const char *kPipelineJson = R"({"format_version":1,"kernel":"pipeline",
"source":"trace_demo.cu","max_events":256,"clock":"clock64",
"groups":[{"index":0,"name":"block","lead":"0"},{"index":1,"name":"producer","lead":"32"}],
"lanes":["main","mma"],
"sites":[{"id":0,"kind":"range","name":"tile","lane":1,"group":1,"loc":"trace_demo.cu:60:5"},
 {"id":1,"kind":"range_start","name":"epi","lane":0,"group":1,"loc":"trace_demo.cu:66:3"},
 {"id":2,"kind":"record","name":"iter","lane":1,"group":1,"loc":"trace_demo.cu:62:5"},
 {"id":3,"kind":"range","name":"load","lane":0,"group":0,"loc":"trace_demo.cu:50:5"},
 {"id":4,"kind":"record","name":"spin","lane":0,"group":0,"loc":"trace_demo.cu:55:7"}],
"flows":[{"src":"load","dst":"epi"}]})";
inline constexpr cutrace::KernelMap kPipeline{"pipeline", 2, 256, cutrace::Clock::clock64,
                                              kPipelineJson};

inline constexpr const char *kTickerJson = R"({"format_version":1,"kernel":"ticker",
"source":"trace_demo.cu","max_events":64,"clock":"globaltimer",
"groups":[{"index":0,"name":"block","lead":"33"}],"lanes":["main"],
"sites":[{"id":0,"kind":"range","name":"step","lane":0,"group":0,"loc":"trace_demo.cu:75:5"},
 {"id":1,"kind":"record","name":"tick","lane":0,"group":0,"loc":"trace_demo.cu:76:5"}],
"flows":[]})";
inline constexpr cutrace::KernelMap kTicker{"ticker", 1, 64, cutrace::Clock::globaltimer,
                                            kTickerJson};
} // namespace demo_map

__device__ float spin_work(int n) {
  float x = float(threadIdx.x);
  for (int i = 0; i < n; ++i)
    x = x * 0.999f + 1.0f;
  return x;
}

__global__ void pipeline(float *out, int k_tiles, cutrace::Slots *__cutrace_slots = nullptr) {
  cutrace::Group<256> __cutrace_g_block(__cutrace_slots, 0, 2, (0));
  {
    cutrace::Range __cutrace_r3(__cutrace_g_block, 3, (int(blockIdx.x)));
    out[blockIdx.x * blockDim.x + threadIdx.x] = spin_work(200);
  }
  if (blockIdx.x == 0)
    for (int i = 0; i < 300; ++i) // 2 + 300 events > 256: 46 dropped at first
      __cutrace_g_block.instant(4, (i));

  cutrace::Group<256> __cutrace_g_producer(__cutrace_slots, 1, 2, (32));
  float acc = 0;
  for (int kt = 0; kt < k_tiles; ++kt) {
    cutrace::Range __cutrace_r0(__cutrace_g_producer, 0, (kt));
    acc += spin_work(100 + kt);
    __cutrace_g_producer.instant(2, (kt));
    if (blockIdx.x % 4 == 3 && kt == 2)
      return; // closes "tile", then both rows
  }
  auto tok = __cutrace_g_producer.start(1, (k_tiles));
  out[blockIdx.x * blockDim.x + threadIdx.x] += acc;
  __cutrace_g_producer.end(tok);
}

__global__ void ticker(float *out, cutrace::Slots *__cutrace_slots = nullptr) {
  cutrace::Group<64, cutrace::Clock::globaltimer> __cutrace_g_block(__cutrace_slots, 0, 1, (33));
  const unsigned cta = blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y;
  for (int i = 0; i < 4; ++i) {
    cutrace::Range __cutrace_r0(__cutrace_g_block, 0, (i));
    __cutrace_g_block.instant(1, (int(cta)));
    out[cta] += spin_work(50);
  }
}

int main() {
  const dim3 grid(8), block(64);
  float *out = nullptr;
  CUDA_CHECK(cudaMalloc(&out, sizeof(float) * grid.x * block.x));
  CUDA_CHECK(cudaMemset(out, 0, sizeof(float) * grid.x * block.x));

  // Automatic mode, as rewritten launch sites do it: two launches, flushed explicitly.
  for (int launch = 0; launch < 2; ++launch)
    pipeline<<<grid, block>>>(out, 6, cutrace::launch(demo_map::kPipeline, grid, block));
  CUDA_CHECK(cudaGetLastError());
  cutrace::flush();

  // The run-time switch: a disabled launch gets nullptr and records nothing.
  cutrace::disable();
  cutrace::Slots *off = cutrace::launch(demo_map::kPipeline, grid, block);
  pipeline<<<grid, block>>>(out, 6, off);
  CUDA_CHECK(cudaGetLastError());
  cutrace::enable();
  if (off != nullptr) {
    std::fprintf(stderr, "trace_demo: disable() did not make launch() return nullptr\n");
    return 1;
  }

  // Explicit mode, 3-D geometry, globaltimer clock.
  const dim3 grid3(2, 2, 2), block3(8, 8, 1);
  float *ticks = nullptr;
  CUDA_CHECK(cudaMalloc(&ticks, sizeof(float) * 8));
  CUDA_CHECK(cudaMemset(ticks, 0, sizeof(float) * 8));
  {
    cutrace::Recorder rec(demo_map::kTicker, grid3, block3);
    ticker<<<grid3, block3>>>(ticks, rec.slots());
    CUDA_CHECK(cudaGetLastError());
    const char *dir = std::getenv("CUTRACE_OUTPUT");
    rec.dump(std::string(dir ? dir : "debug") + "/ticker_explicit");
    const cutrace::Trace t = rec.decode();
    std::printf("trace_demo: ticker decoded %zu rows, %zu problems\n", t.rows.size(),
                t.problems.size());
  }

  // Left for the exit hook: written at normal exit as pipeline_2.*.
  pipeline<<<grid, block>>>(out, 6, cutrace::launch(demo_map::kPipeline, grid, block));
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::printf("trace_demo: done\n");
  return 0;
}
