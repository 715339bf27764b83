// How many record slots each row of a recorded launch gets (docs/guide.md, "Row capacity").
// The decode map's max_events is the floor. Until a launch of the kernel has drained, its launches
// share a per-launch budget among their rows (CUTRACE_LAUNCH_MB, 64 by default: 240 rows of a
// persistent GEMM hold ~35,000 slots each); from then on each holds what the fullest row of the
// kernel's drained launches tried to store, plus a quarter. So only a kernel's first launches
// take (and zero) the budget's memory; the bytes moved back follow the records, not the
// capacity (DeviceBuffer::read_back_compact). A launch queued while the kernel's first launch
// is still in flight waits for it to drain (await_first), so that only the first is sized blind.
#ifndef CUTRACE_SRC_CAPTURE_ROW_SIZING_H
#define CUTRACE_SRC_CAPTURE_ROW_SIZING_H

#include <cutrace/map.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace cutrace {

// A launch's rows: their capacity in slots, and 1 CTA in `cta_stride` recorded (buffer header
// word 15; docs/FORMAT.md, "Buffer header").
struct RowLayout {
  uint32_t capacity = 0;
  uint32_t cta_stride = 1;
};

class RowSizing {
public:
  // `launch_bytes`: the budget a launch's rows share; `most_bytes`: what no launch exceeds
  // (the in-flight pool), however full its kernel's rows were before. `whole_ctas`: when the
  // rows every CTA needs exceed `most_bytes`, record 1 CTA in k, each whole (the default);
  // false: every CTA, each row keeping its first records (CUTRACE_ROW_RULE=first).
  RowSizing(uint64_t launch_bytes, uint64_t most_bytes, bool whole_ctas = true)
      : launch_bytes_(launch_bytes), most_bytes_(most_bytes), whole_ctas_(whole_ctas) {}

  // The rows of a launch of `ctas` CTAs of `rows_per_cta` rows each: capacity(), or, when a
  // drained launch of the kernel showed that every CTA's rows at the size they need exceed
  // `most_bytes`, that size for 1 CTA in k, the smallest k that fits (docs/guide.md, "Row
  // capacity").
  RowLayout plan(const KernelMap &map, uint64_t ctas, uint32_t rows_per_cta,
               bool share_budget = true) const;

  // The capacity of each of the `rows` rows of a launch of `map` (at least its max_events, at
  // most kMaxRowCapacity and what keeps the launch within `most_bytes`); max_events itself when
  // the kernel's rows are not sized at launch. `share_budget` false: no share of the launch
  // budget before a launch drained (a CUDA graph's launch, whose buffer lives as long as the
  // process: a graph of many kernels would hold the budget many times over).
  uint32_t capacity(const KernelMap &map, uint64_t rows, bool share_budget = true) const;
  // A launch of `map` drained: its fullest row attempted `slots` record slots.
  void saw(const KernelMap &map, uint32_t slots);

  // A launch of `map` was given its buffer (it goes to the drain once queued); drained() ends
  // it, with its fullest row's attempted slots, or nothing when the launch failed.
  void queued(const KernelMap &map);
  void drained(const KernelMap &map, std::optional<uint32_t> fullest_slots);
  // Before a launch of `map` is sized: under the whole-CTA rule, when the kernel's rows are sized
  // at launch, none of its launches has drained and one is queued, waits for one to drain (at
  // most `most`), so this launch is sized from what it needed rather than from the budget's
  // share. True when it waited.
  bool await_first(const KernelMap &map, std::chrono::milliseconds most);

private:
  // The most slots a row of a drained launch of `map` attempted, if one drained.
  std::optional<uint32_t> fullest(const KernelMap &map) const;

  uint64_t launch_bytes_, most_bytes_;
  bool whole_ctas_;
  mutable std::mutex mu_;
  std::condition_variable drained_;
  // By kernel name (looked up without a copy of it on every launch): the most slots a row of a
  // drained launch attempted; the launches queued and not drained.
  std::map<std::string, uint32_t, std::less<>> fullest_;
  std::map<std::string, uint32_t, std::less<>> queued_;
};

} // namespace cutrace

#endif // CUTRACE_SRC_CAPTURE_ROW_SIZING_H
