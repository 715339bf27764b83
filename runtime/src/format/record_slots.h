// How many record slots of a row are written (docs/FORMAT.md, "Record (8 bytes)"): shared by the
// decoder and the compact layout, so both count a row alike.
#ifndef CUTRACE_SRC_RECORD_SLOTS_H
#define CUTRACE_SRC_RECORD_SLOTS_H

#include "bytes.h"

#include <cutrace/map.h>

#include <algorithm>
#include <optional>

namespace cutrace {

// Slots from slot 0 up to the first never-written one (head word 0), at most `capacity`. In
// version 3 the slot after a wide RANGE head holds its two times, which may be 0: it counts with
// its head.
inline uint32_t written_slots(const uint8_t *records, uint32_t capacity, uint32_t version) {
  const uint32_t size = record_bytes(version);
  const bool v3 = version >= kRecordFormatVersion;
  uint64_t n = 0;
  while (n < capacity) {
    const uint32_t head = bytes::u32(records + n * size);
    if (head == 0)
      break;
    n += v3 && (head & (kRangeBit | kWideRange)) == (kRangeBit | kWideRange) ? 2 : 1;
  }
  return uint32_t(std::min<uint64_t>(n, capacity));
}

// Whether a row's records include its ring (docs/FORMAT.md, "When a row fills"): a closed row of
// a version-4 buffer whose end header counts cells written there. Its first part and those
// cells are then held whole (a cell's second slot may be 0), not up to a never-written slot.
inline bool row_uses_ring(uint32_t version, const std::optional<uint32_t> &attempted,
                          uint32_t max_events) {
  const uint32_t slots = attempted.value_or(0);
  return version >= kRingFormatVersion && ring_cells_written(slots, max_events) != 0;
}

// The slots of a row the decoder reads and the compact layout keeps, at most `limit`: its first
// part and ring cells whole when it uses its ring, else up to the first never-written slot.
inline uint32_t held_slots(const uint8_t *records, uint32_t limit, uint32_t version,
                           std::optional<uint32_t> attempted, uint32_t max_events) {
  if (row_uses_ring(version, attempted, max_events))
    return std::min({limit, attempted.value_or(0), max_events});
  return written_slots(records, limit, version);
}

} // namespace cutrace

#endif
