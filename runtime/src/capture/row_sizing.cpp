#include "row_sizing.h"

#include <algorithm>
#include <optional>
#include <string_view>

namespace cutrace {

namespace {

// The most slots per row that keep `rows` rows (headers included) within `bytes`, even.
uint32_t slots_within(uint64_t bytes, uint64_t rows) {
  if (rows == 0)
    return kMaxRowCapacity;
  const uint64_t per_row = bytes / rows;
  if (per_row <= kRowHeaderBytes)
    return 0;
  const uint64_t slots = (per_row - kRowHeaderBytes) / kRecordBytes;
  return uint32_t(std::min<uint64_t>(slots, kMaxRowCapacity)) & ~1u;
}

} // namespace

uint32_t RowSizing::capacity(const KernelMap &map, uint64_t rows, bool share_budget) const {
  if (!map.rows_sized_at_launch)
    return map.max_events;
  std::optional<uint32_t> fullest;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (const auto it = fullest_.find(std::string_view(map.kernel)); it != fullest_.end())
      fullest = it->second;
  }
  // Before any launch of the kernel drained: a share of the launch budget. After: what its
  // fullest row needed and a quarter more, so a later launch of a larger problem still fits.
  const uint64_t wanted = fullest        ? uint64_t(*fullest) + *fullest / 4 + 2
                          : share_budget ? slots_within(launch_bytes_, rows)
                                         : 0;
  const uint64_t most = slots_within(most_bytes_, rows);
  const uint64_t slots = std::max<uint64_t>(map.max_events, std::min(wanted, most));
  return uint32_t(std::min<uint64_t>(slots, kMaxRowCapacity));
}

void RowSizing::saw(const KernelMap &map, uint32_t slots) {
  std::lock_guard<std::mutex> lock(mu_);
  uint32_t &fullest = fullest_[map.kernel];
  fullest = std::max(fullest, slots);
}

} // namespace cutrace
