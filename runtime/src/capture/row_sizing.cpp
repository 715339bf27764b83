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

// What a row of a kernel whose fullest drained row attempted `fullest` slots asks for: that and
// a quarter more, so a later launch of a larger problem still fits.
uint64_t wanted_after(uint32_t fullest) { return uint64_t(fullest) + fullest / 4 + 2; }

} // namespace

std::optional<uint32_t> RowSizing::fullest(const KernelMap &map) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (const auto it = fullest_.find(std::string_view(map.kernel)); it != fullest_.end())
    return it->second;
  return std::nullopt;
}

uint32_t RowSizing::capacity(const KernelMap &map, uint64_t rows, bool share_budget) const {
  if (!map.rows_sized_at_launch)
    return map.max_events;
  // Before any launch of the kernel drained: a share of the launch budget. After: what its
  // fullest row needed.
  const std::optional<uint32_t> most_attempted = fullest(map);
  const uint64_t wanted = most_attempted ? wanted_after(*most_attempted)
                          : share_budget ? slots_within(launch_bytes_, rows)
                                         : 0;
  const uint64_t most = slots_within(most_bytes_, rows);
  const uint64_t slots = std::max<uint64_t>(map.max_events, std::min(wanted, most));
  return uint32_t(std::min<uint64_t>(slots, kMaxRowCapacity));
}

RowLayout RowSizing::plan(const KernelMap &map, uint64_t ctas, uint32_t rows_per_cta,
                        bool share_budget) const {
  RowLayout plan{capacity(map, ctas * rows_per_cta, share_budget)};
  const std::optional<uint32_t> most_attempted = fullest(map);
  if (!whole_ctas_ || !map.rows_sized_at_launch || !most_attempted || ctas < 2 || rows_per_cta == 0)
    return plan;
  const uint64_t wanted = std::min<uint64_t>(wanted_after(*most_attempted), kMaxRowCapacity);
  if (plan.capacity >= wanted)
    return plan;
  // Every CTA's rows at `wanted` exceed the pool: the fewest CTAs left out, each kept whole.
  const uint64_t cta_bytes = uint64_t(rows_per_cta) * row_stride_bytes(uint32_t(wanted));
  // The buffer header and the row the CTAs left out write their row ends to.
  const uint64_t overhead = kBufferHeaderBytes + kRowHeaderBytes;
  const uint64_t room = most_bytes_ > overhead ? most_bytes_ - overhead : 0;
  const uint64_t fit = room / cta_bytes; // CTAs whose rows the pool holds at `wanted`
  const uint64_t stride = fit == 0 ? ctas : (ctas + fit - 1) / fit;
  plan.cta_stride = uint32_t(std::min<uint64_t>(stride, kMaxCtaStride));
  const uint64_t kept = (ctas + plan.cta_stride - 1) / plan.cta_stride;
  plan.capacity = uint32_t(std::max<uint64_t>(
      map.max_events, std::min<uint64_t>(wanted, slots_within(room, kept * rows_per_cta))));
  return plan;
}

void RowSizing::saw(const KernelMap &map, uint32_t slots) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    uint32_t &fullest = fullest_[map.kernel];
    fullest = std::max(fullest, slots);
  }
  drained_.notify_all();
}

void RowSizing::queued(const KernelMap &map) {
  if (!whole_ctas_ || !map.rows_sized_at_launch)
    return; // await_first never waits for such a kernel
  std::lock_guard<std::mutex> lock(mu_);
  ++queued_[map.kernel];
}

void RowSizing::drained(const KernelMap &map, std::optional<uint32_t> fullest_slots) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (const auto it = queued_.find(std::string_view(map.kernel)); it != queued_.end())
      if (it->second > 0 && --it->second == 0)
        queued_.erase(it);
  }
  if (fullest_slots)
    saw(map, *fullest_slots);
  else
    drained_.notify_all(); // a waiter may now find nothing queued
}

bool RowSizing::await_first(const KernelMap &map, std::chrono::milliseconds most) {
  if (!whole_ctas_ || !map.rows_sized_at_launch)
    return false;
  const std::string_view kernel(map.kernel);
  std::unique_lock<std::mutex> lock(mu_);
  auto settled = [&] {
    return fullest_.find(kernel) != fullest_.end() || queued_.find(kernel) == queued_.end();
  };
  if (settled())
    return false;
  // A bounded wait: a kernel that only ends once a later one runs must not hang the program;
  // past it, this launch takes the budget's share as the first did.
  drained_.wait_for(lock, most, settled);
  return true;
}

} // namespace cutrace
