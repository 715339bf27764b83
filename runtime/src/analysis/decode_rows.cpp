// Which group and slice each row of a CTA belongs to (docs/FORMAT.md, "Rows of a CTA"): groups in
// index order, one row for a TRACE_GROUP group, one per slice for a TRACE_GROUPS group.
#include <cutrace/decode.h>

#include <algorithm>

namespace cutrace {

namespace {

// A lead written as a plain decimal number is the writer's thread; any other expression is
// known only on the device.
std::optional<uint32_t> literal_thread(const std::string &lead) {
  if (lead.empty() || lead.size() > 9 ||
      !std::all_of(lead.begin(), lead.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return uint32_t(std::stoul(lead));
}

uint32_t threads_of(const uint32_t block[3]) {
  const uint64_t threads = uint64_t(block[0]) * block[1] * block[2];
  return uint32_t(std::min<uint64_t>(threads, UINT32_MAX));
}

} // namespace

RowPlan::RowPlan(const DecodeMap &map, const uint32_t block[3])
    : map_(map), block_threads_(threads_of(block)) {
  first_row_.reserve(map.groups.size());
  for (const GroupInfo &g : map.groups) {
    first_row_.push_back(rows_);
    rows_ += g.sliced() ? slices_in(block_threads_, g.slice_threads, g.first_thread) : 1;
  }
}

RowPlace RowPlan::place(uint32_t row_in_cta) const {
  RowPlace p;
  if (row_in_cta >= rows_) {
    p.group = row_in_cta;
    return p;
  }
  // The last group whose first row is at or before this one (empty sliced groups share it).
  const auto it = std::upper_bound(first_row_.begin(), first_row_.end(), uint64_t(row_in_cta));
  p.group = uint32_t(it - first_row_.begin()) - 1;
  const GroupInfo &g = map_.groups[p.group];
  if (g.sliced()) {
    p.slice = uint32_t(row_in_cta - first_row_[p.group]);
    p.first_thread = g.first_thread + p.slice * g.slice_threads;
  } else {
    p.first_thread = literal_thread(g.lead);
  }
  return p;
}

std::string row_label(const DecodeMap &map, const RowPlace &place) {
  if (place.group >= map.groups.size())
    return "#" + std::to_string(place.group);
  const GroupInfo &g = map.groups[place.group];
  if (place.slice == kNoSlice || !place.first_thread)
    return g.name;
  const uint32_t first = *place.first_thread;
  if (g.slice_threads == 32)
    return g.name + "[w" + std::to_string(first / 32) + "]";
  if (g.slice_threads == 128)
    return g.name + "[wg" + std::to_string(first / 128) + "]";
  return g.name + "[t" + std::to_string(first) + "]";
}

} // namespace cutrace
