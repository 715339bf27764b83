// Record layouts -> events (docs/FORMAT.md, "Record (8 bytes)", "Record (16 bytes)").
#include "records.h"

#include "../format/bytes.h"

#include <algorithm>

namespace cutrace::records {

namespace {

// Versions 1 and 2: head = kind << 30 | site, payload, u64 time.
RowRecords read_legacy(const uint8_t *rec, uint32_t stored) {
  RowRecords out;
  out.events.reserve(stored);
  for (uint32_t i = 0; i < stored; ++i, rec += kLegacyRecordBytes) {
    const uint32_t head = bytes::u32(rec);
    const uint32_t kind = head >> kRecordKindShift;
    if (kind == 0 || (head & ~(3u << kRecordKindShift) & ~kSiteMask) != 0) {
      ++out.invalid;
      continue;
    }
    const uint64_t ts = bytes::u64(rec + 8);
    out.events.push_back(
        {EventKind(kind - 1), head & kSiteMask, int32_t(bytes::u32(rec + 4)), ts, ts});
  }
  return out;
}

// The full time of a 32-bit stamp taken at or after `last`: the next time whose low 32 bits are
// `lo`. Exact while consecutive records of a row are less than 2^32 ticks apart.
uint64_t unwrap(uint64_t last, uint32_t lo) { return last + uint32_t(lo - uint32_t(last)); }

// Version 3: {head, 32-bit time or payload}. A wide RANGE is followed by its {begin, end} slot; a
// narrow RANGE may be followed by its EXT, and a BEGIN, INSTANT or narrow RANGE (after its EXT)
// by its PAYLOAD, each naming the same site.
RowRecords read_v3(const uint8_t *rec, uint32_t stored, uint64_t start_ts) {
  RowRecords out;
  out.events.reserve(stored);
  uint64_t last = start_ts;
  // The event the next PAYLOAD (or, for a long range, EXT) record completes, if any.
  enum class Awaits { nothing, payload, ext };
  Awaits awaits = Awaits::nothing;
  for (uint32_t i = 0; i < stored; ++i, rec += kRecordBytes) {
    const uint32_t head = bytes::u32(rec), data = bytes::u32(rec + 4);
    const uint32_t site = head & kSiteMask;
    Event *prev = out.events.empty() ? nullptr : &out.events.back();
    const bool is_ext = (head & ~kSiteMask) == uint32_t(RecordKind::ext) << kKindShift;
    if (awaits == Awaits::ext && !(is_ext && site == prev->site)) {
      out.events.pop_back(); // a long range without its begin
      ++out.lost_begin;
      prev = out.events.empty() ? nullptr : &out.events.back();
      awaits = Awaits::nothing;
    }
    if ((head & (kRangeBit | kWideRange)) == (kRangeBit | kWideRange)) {
      awaits = Awaits::nothing;
      if ((head & ~kSiteMask) != (kRangeBit | kWideRange)) {
        ++out.invalid;
        continue;
      }
      if (i + 1 >= stored) { // its times were past the row's capacity
        ++out.lost_begin;
        continue;
      }
      ++i, rec += kRecordBytes;
      const uint32_t begin = bytes::u32(rec), end = bytes::u32(rec + 4);
      last = unwrap(last, end);
      // The length from the two 32-bit stamps: exact below 2^32 ticks.
      out.events.push_back(
          {EventKind::range, site, int32_t(data), last, last - uint32_t(end - begin)});
      continue;
    }
    if (head & kRangeBit) {
      const uint32_t length = (head >> kRangeLengthShift) & kRangeLong;
      last = unwrap(last, data);
      out.events.push_back({EventKind::range, site, 0, last, last - length});
      awaits = length == kRangeLong ? Awaits::ext : Awaits::payload;
      continue;
    }
    const uint32_t kind = head >> kKindShift;
    const bool reserved_clear = (head & ~kSiteMask & ~(7u << kKindShift)) == 0;
    if (!reserved_clear || kind == 0 || kind > uint32_t(RecordKind::ext)) {
      ++out.invalid;
      awaits = Awaits::nothing;
      continue;
    }
    switch (RecordKind(kind)) {
    case RecordKind::begin:
    case RecordKind::end:
    case RecordKind::instant:
      last = unwrap(last, data);
      out.events.push_back({EventKind(kind - 1), site, 0, last, last});
      awaits = RecordKind(kind) == RecordKind::end ? Awaits::nothing : Awaits::payload;
      break;
    case RecordKind::ext:
      if (awaits != Awaits::ext) {
        ++out.invalid;
        break;
      }
      // The range's length from its two 32-bit stamps: exact below 2^32 ticks.
      prev->begin_ts = prev->ts - uint32_t(uint32_t(prev->ts) - data);
      awaits = Awaits::payload;
      break;
    case RecordKind::payload:
      if (awaits != Awaits::payload || prev->site != site) {
        ++out.invalid;
        awaits = Awaits::nothing;
        break;
      }
      prev->payload = int32_t(data);
      awaits = Awaits::nothing;
      break;
    default:
      ++out.invalid;
      awaits = Awaits::nothing;
    }
  }
  if (awaits == Awaits::ext) { // the row's last record: a long range cut from its EXT
    out.events.pop_back();
    ++out.lost_begin;
  }
  return out;
}

bool wide_range(uint32_t head) {
  return (head & (kRangeBit | kWideRange)) == (kRangeBit | kWideRange);
}

// An EXT or a PAYLOAD: a slot that completes the record before it.
bool continues(uint32_t head) {
  const uint32_t kind = head >> kKindShift;
  return !(head & kRangeBit) &&
         (kind == uint32_t(RecordKind::ext) || kind == uint32_t(RecordKind::payload));
}

// Where the first part's whole records end: a record that started kRingMargin slots or fewer
// before the part's end (`linear`) went to the ring whole, and what the first part holds of it
// is a partial copy.
uint32_t first_part_end(const uint8_t *rec, uint32_t linear) {
  uint32_t i = 0;
  while (i + kRingMargin < linear) {
    const uint32_t head = bytes::u32(rec + uint64_t(i) * kRecordBytes);
    if (head == 0)
      break;
    i += wide_range(head) ? 2 : 1;
    while (i < linear && continues(bytes::u32(rec + uint64_t(i) * kRecordBytes)))
      ++i;
  }
  return i;
}

} // namespace

RowRecords read_ring_records(const uint8_t *rec, uint32_t stored, uint32_t capacity,
                             uint32_t attempted, uint64_t start_ts, uint64_t end_ts) {
  const uint32_t linear = linear_slots(capacity), cells = ring_cells(capacity);
  const uint32_t written = ring_cells_written(attempted, capacity);
  RowRecords out =
      read_v3(rec, first_part_end(rec, std::min(linear, stored)), start_ts);
  // The cells oldest first, as one run of records: a cell's second slot is 0 when its record
  // has one slot only (a wide RANGE's times are never both 0: it lasted a tick at least).
  std::vector<uint8_t> run;
  const uint32_t held = std::min(written, cells);
  run.reserve(size_t(held) * 2 * kRecordBytes);
  for (uint32_t i = 0; i < held; ++i) {
    const uint32_t cell = written > cells ? (written + i) & (cells - 1) : i;
    const uint64_t slot = linear + 2 * uint64_t(cell);
    if (slot + 2 > stored)
      continue; // cut off (a corrupt count): the decoder reports the row's count
    const uint8_t *at = rec + slot * kRecordBytes;
    run.insert(run.end(), at, at + kRecordBytes);
    if (wide_range(bytes::u32(at)) || bytes::u64(at + kRecordBytes) != 0)
      run.insert(run.end(), at + kRecordBytes, at + 2 * kRecordBytes);
  }
  const uint64_t last = out.events.empty() ? start_ts : out.events.back().ts;
  RowRecords ring = read_v3(run.data(), uint32_t(run.size() / kRecordBytes), last);
  // Unwrapped from the first part's last record, the cells may be whole 2^32-tick turns early
  // when the records lost between lasted that long: the newest cell precedes the row's end
  // header by less than a turn.
  uint64_t newest = 0;
  for (const Event &e : ring.events)
    newest = std::max(newest, e.ts);
  const uint64_t turns = !ring.events.empty() && end_ts > newest ? (end_ts - newest) >> 32 : 0;
  if (written > cells && !ring.events.empty())
    out.gap_at = out.events.size();
  for (Event &e : ring.events) {
    e.ts += turns << 32;
    e.begin_ts += turns << 32;
    out.events.push_back(e);
  }
  out.invalid += ring.invalid;
  out.lost_begin += ring.lost_begin;
  return out;
}

RowRecords read_records(const uint8_t *records, uint32_t stored, uint32_t version,
                        uint64_t start_ts) {
  return version >= kRecordFormatVersion ? read_v3(records, stored, start_ts)
                                         : read_legacy(records, stored);
}

} // namespace cutrace::records
