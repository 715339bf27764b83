// Copy-back of one launch's trace buffer (docs/PERFORMANCE.md, "Whole runs"): the compact
// read-back the runtime's drain uses (row headers, then each row's records up to the longest
// row's count) against copying the whole buffer, for 8192 CTAs of 1024 threads with a row
// capacity of 1024 events and 0..1024 events recorded per row. Built against the runtime's
// sources (test/device/h200_runs.sh); prints one table, times are medians of 7 on the GPU.
#include "../../runtime/src/capture/device_buffer.h"

#include <cutrace/device.h>
#include <cutrace/run.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

constexpr uint32_t kCapacity = 1024;

__global__ void record(cutrace::Slots *slots, uint32_t events) {
  cutrace::Group<kCapacity> g(slots, 0, 1, 0);
  for (uint32_t e = 0; e < events; ++e)
    g.instant(0, int32_t(e));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main() {
  const cutrace::KernelMap map{"record", 1, kCapacity, cutrace::Clock::clock64, "{}"};
  const dim3 grid(8192), block(1024);
  cudaStream_t copy;
  cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking);
  std::printf("| events per row | full buffer MB | full copy ms | compact MB | compact copy ms | "
              "compact / (64 x rows + 16 x events) |\n|---|---|---|---|---|---|\n");
  for (uint32_t events : {0u, 1u, 7u, 64u, 256u, 1024u}) {
    std::vector<double> full_ms, compact_ms;
    size_t full_bytes = 0, compact_bytes = 0;
    for (int rep = 0; rep < 7; ++rep) {
      auto buf = cutrace::DeviceBuffer::allocate(map, grid, block, 0);
      if (!buf) {
        std::printf("allocate: %s\n", buf.error.c_str());
        return 1;
      }
      record<<<grid, block>>>(buf->slots(), events);
      cudaDeviceSynchronize();
      auto t0 = std::chrono::steady_clock::now();
      auto full = buf->read_back();
      auto t1 = std::chrono::steady_clock::now();
      auto compact = buf->read_back_compact(copy);
      auto t2 = std::chrono::steady_clock::now();
      if (!full || !compact) {
        std::printf("read back failed\n");
        return 1;
      }
      const auto again = cutrace::compact_buffer(full->data(), full->size());
      if (again != *compact) {
        std::printf("compact read-back differs from compacting the full buffer\n");
        return 1;
      }
      full_bytes = full->size(), compact_bytes = compact->size();
      full_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      compact_ms.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
    }
    const double ideal = 64.0 * grid.x + 16.0 * grid.x * std::min(events, kCapacity);
    std::printf("| %u | %.1f | %.2f | %.3f | %.3f | %.4f |\n", events, full_bytes / 1e6,
                median(full_ms), compact_bytes / 1e6, median(compact_ms),
                compact_bytes / ideal);
  }
  return 0;
}
