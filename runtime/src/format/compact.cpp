// The compact buffer layout (docs/FORMAT.md, "Compact layout"): what the host stores of a launch
// is its row headers and the records the rows hold, never the row capacity.
#include <cutrace/run.h>

#include "bytes.h"
#include "record_slots.h"

#include <algorithm>
#include <cstring>

namespace cutrace {

std::optional<uint32_t> stored_records(const uint8_t *row_header, uint32_t max_events) {
  if (bytes::u32(row_header + 32) != kRowEndTag)
    return std::nullopt;
  return std::min(bytes::u32(row_header + 36), max_events);
}

std::vector<uint8_t> compact_rows(const BufferHeader &full, const RowsInMemory &rows) {
  std::vector<uint8_t> out;
  compact_rows_into(full, rows, out);
  return out;
}

void compact_rows_into(const BufferHeader &full, const RowsInMemory &rows,
                       std::vector<uint8_t> &out) {
  BufferHeader h = full;
  const uint32_t record_bytes = h.record_bytes();
  // Slots up to the first unwritten one, as the decoder counts them.
  std::vector<uint32_t> counts(h.num_rows);
  uint64_t total = 0;
  for (uint32_t r = 0; r < h.num_rows; ++r) {
    // Closed rows say how many they stored; the scan stops there too, so both agree with decode.
    const uint32_t limit = std::min(
        stored_records(rows.header(r), h.max_events).value_or(h.max_events), rows.record_capacity);
    counts[r] = written_slots(rows.records_of(r), limit, h.version);
    total += counts[r];
  }
  h.version = std::max(h.version, kCompactFormatVersion); // 1 -> 2 (word 14 names it); 3 stays
  h.layout = BufferLayout::compact;
  // Every byte below is written: growing `out` zeroes only what it never held before.
  out.resize(kBufferHeaderBytes + uint64_t(h.num_rows) * kRowHeaderBytes + total * record_bytes);
  encode_buffer_header(h, out.data());
  uint8_t *header_at = out.data() + kBufferHeaderBytes;
  uint8_t *record_at = header_at + uint64_t(h.num_rows) * kRowHeaderBytes;
  for (uint32_t r = 0; r < h.num_rows; ++r, header_at += kRowHeaderBytes) {
    std::memcpy(header_at, rows.header(r), kRowHeaderBytes);
    bytes::put_u32(header_at + 60, counts[r]);
    if (counts[r] == 0) // records may be null (no row holds any): memcpy must not see it
      continue;
    std::memcpy(record_at, rows.records_of(r), uint64_t(counts[r]) * record_bytes);
    record_at += uint64_t(counts[r]) * record_bytes;
  }
}

std::pair<uint64_t, uint64_t> buffer_extent_ns(const uint8_t *buffer, size_t size) {
  Expected<BufferHeader> h = parse_buffer_header(buffer, size);
  if (!h)
    return {0, 0};
  const uint64_t pitch =
      h->layout == BufferLayout::compact ? kRowHeaderBytes : uint64_t(h->row_stride_bytes);
  uint64_t first = UINT64_MAX, last = 0;
  for (uint64_t r = 0; r < h->num_rows; ++r) {
    const uint64_t at = kBufferHeaderBytes + r * pitch;
    if (at + kRowHeaderBytes > size)
      break;
    const uint8_t *row = buffer + at;
    if (bytes::u32(row) != kRowStartTag)
      continue;
    first = std::min(first, bytes::u64(row + 8));
    last = std::max(last, bytes::u32(row + 32) == kRowEndTag ? bytes::u64(row + 40)
                                                             : bytes::u64(row + 8));
  }
  return first == UINT64_MAX ? std::pair<uint64_t, uint64_t>{0, 0}
                             : std::pair<uint64_t, uint64_t>{first, std::max(first, last)};
}

BufferGaps buffer_gaps(const uint8_t *buffer, size_t size) {
  BufferGaps gaps;
  Expected<BufferHeader> h = parse_buffer_header(buffer, size);
  if (!h)
    return gaps;
  gaps.cta_stride = h->cta_stride;
  gaps.rows_sized_at_launch = h->rows_sized_at_launch;
  gaps.ctas_left_out = h->num_ctas() - h->recorded_ctas();
  const bool compact = h->layout == BufferLayout::compact;
  const uint64_t pitch = compact ? kRowHeaderBytes : uint64_t(h->row_stride_bytes);
  for (uint64_t r = 0; r < h->num_rows; ++r) {
    const uint64_t at = kBufferHeaderBytes + r * pitch;
    if (at + kRowHeaderBytes > size)
      break;
    const uint8_t *row = buffer + at;
    if (bytes::u32(row) != kRowStartTag)
      continue;
    if (bytes::u32(row + 32) == kRowEndTag) {
      const uint32_t dropped = bytes::u32(row + 56);
      gaps.dropped_events += dropped;
      gaps.rows_overflowed += dropped != 0;
      if (dropped)
        gaps.slots_needed = std::max(gaps.slots_needed, bytes::u32(row + 36));
      continue;
    }
    // Never closed: cut off when it holds records (compact: its count; full: a first record).
    const bool records =
        compact ? bytes::u32(row + 60) != 0
                : at + kRowHeaderBytes + 8 <= size && bytes::u64(row + kRowHeaderBytes) != 0;
    gaps.rows_never_ended += records;
  }
  return gaps;
}

std::vector<uint8_t> compact_buffer(const uint8_t *full, size_t size) {
  Expected<BufferHeader> parsed = parse_buffer_header(full, size);
  if (!parsed || parsed->layout != BufferLayout::full || size < parsed->buffer_bytes())
    return std::vector<uint8_t>(full, full + size);
  const uint8_t *rows = full + kBufferHeaderBytes;
  const uint32_t stride = parsed->row_stride_bytes;
  return compact_rows(*parsed, {rows, stride, rows + kRowHeaderBytes, stride, parsed->max_events});
}

} // namespace cutrace
