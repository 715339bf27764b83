// How many record slots each row of a recorded launch gets (docs/guide.md, "Row capacity").
// The decode map's max_events is the floor. Until a launch of the kernel has drained, its launches
// share a per-launch budget among their rows (CUTRACE_LAUNCH_MB, 64 by default: 240 rows of a
// persistent GEMM hold ~35,000 slots each); from then on each holds what the fullest row of the
// kernel's drained launches tried to store, plus a quarter. So only a kernel's first launches
// take (and zero) the budget's memory; the bytes moved back follow the records, not the
// capacity (DeviceBuffer::read_back_compact).
#ifndef CUTRACE_SRC_CAPTURE_ROW_SIZING_H
#define CUTRACE_SRC_CAPTURE_ROW_SIZING_H

#include <cutrace/map.h>

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>

namespace cutrace {

class RowSizing {
public:
  // `launch_bytes`: the budget a launch's rows share; `most_bytes`: what no launch exceeds
  // (the in-flight pool), however full its kernel's rows were before.
  RowSizing(uint64_t launch_bytes, uint64_t most_bytes)
      : launch_bytes_(launch_bytes), most_bytes_(most_bytes) {}

  // The capacity of each of the `rows` rows of a launch of `map` (at least its max_events, at
  // most kMaxRowCapacity and what keeps the launch within `most_bytes`); max_events itself when
  // the kernel's rows are not sized at launch. `share_budget` false: no share of the launch
  // budget before a launch drained (a CUDA graph's launch, whose buffer lives as long as the
  // process: a graph of many kernels would hold the budget many times over).
  uint32_t capacity(const KernelMap &map, uint64_t rows, bool share_budget = true) const;
  // A launch of `map` drained: its fullest row attempted `slots` record slots.
  void saw(const KernelMap &map, uint32_t slots);

private:
  uint64_t launch_bytes_, most_bytes_;
  mutable std::mutex mu_;
  // By kernel name (looked up without a copy of it on every launch): the most slots a row of a
  // drained launch attempted.
  std::map<std::string, uint32_t, std::less<>> fullest_;
};

} // namespace cutrace

#endif // CUTRACE_SRC_CAPTURE_ROW_SIZING_H
