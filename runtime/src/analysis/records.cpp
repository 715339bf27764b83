// Record layouts -> events (docs/FORMAT.md, "Record (8 bytes)", "Record (16 bytes)").
#include "records.h"

#include "../format/bytes.h"

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

} // namespace

RowRecords read_records(const uint8_t *records, uint32_t stored, uint32_t version,
                        uint64_t start_ts) {
  return version >= kRecordFormatVersion ? read_v3(records, stored, start_ts)
                                         : read_legacy(records, stored);
}

} // namespace cutrace::records
