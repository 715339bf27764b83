// How many record slots of a row are written (docs/FORMAT.md, "Record (8 bytes)"): shared by the
// decoder and the compact layout, so both count a row alike.
#ifndef CUTRACE_SRC_RECORD_SLOTS_H
#define CUTRACE_SRC_RECORD_SLOTS_H

#include "bytes.h"

#include <cutrace/map.h>

#include <algorithm>

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

} // namespace cutrace

#endif
