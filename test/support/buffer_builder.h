// Synthetic device buffers (the host is little endian, as the GPU is): BufferBuilder writes the
// 16-byte records of buffer versions 1 and 2 (what every earlier recorder wrote: decoder tests,
// export tests and the trace generator), Buffer8Builder the 8-byte records of version 3, exactly
// as runtime/include/cutrace/device.h writes them.
#ifndef CUTRACE_TEST_SUPPORT_BUFFER_BUILDER_H
#define CUTRACE_TEST_SUPPORT_BUFFER_BUILDER_H

#include <cutrace/decode.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace cutrace::test_support {

inline void put32(std::vector<uint8_t> &b, size_t at, uint32_t v) { std::memcpy(&b[at], &v, 4); }
inline void put64(std::vector<uint8_t> &b, size_t at, uint64_t v) { std::memcpy(&b[at], &v, 8); }
// Raw reads, for checks that must not go through the decoder.
inline uint32_t read32(const uint8_t *p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint64_t read64(const uint8_t *p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// What both record layouts share: the buffer and row headers, the row of a (CTA, group), and a
// cursor per row that counts every event offered (as the device's does).
class RowsBuilder {
public:
  const BufferHeader &header() const { return header_; }
  // CTA `cta`'s row `group` (with a stride, `cta` is one the launch recorded: a multiple of it).
  size_t row_at(uint32_t cta, uint32_t group) const {
    return kBufferHeaderBytes + size_t(row_index(cta, group)) * header_.row_stride_bytes;
  }
  // Records 1 CTA in `stride` (buffer header word 15): rows for CTAs 0, stride, 2 stride, ...
  // only, as the device lays them out. Call before writing any row.
  void keep_one_cta_in(uint32_t stride) {
    header_.set_cta_stride(stride);
    bytes.assign(header_.buffer_bytes(), 0);
    encode_buffer_header(header_, bytes.data());
    cursors_.assign(header_.num_rows, 0);
  }
  void start(uint32_t cta, uint32_t group, uint64_t ns, uint64_t cycles, uint32_t smid = 7) {
    const size_t at = row_at(cta, group);
    put32(bytes, at, kRowStartTag);
    put32(bytes, at + 4, smid);
    put64(bytes, at + 8, ns);
    put64(bytes, at + 16, cycles);
    put32(bytes, at + 24, cta);
    put32(bytes, at + 28, group);
  }
  void end(uint32_t cta, uint32_t group, uint64_t ns, uint64_t cycles) {
    const size_t at = row_at(cta, group);
    const uint32_t attempted = cursor(cta, group);
    put32(bytes, at + 32, kRowEndTag);
    put32(bytes, at + 36, attempted);
    put64(bytes, at + 40, ns);
    put64(bytes, at + 48, cycles);
    put32(bytes, at + 56, attempted > header_.max_events ? attempted - header_.max_events : 0);
  }

  std::vector<uint8_t> bytes;

protected:
  RowsBuilder(uint32_t ctas, uint32_t groups, uint32_t max_events, Clock clock, uint32_t threads,
              uint32_t version) {
    const uint32_t grid[3] = {ctas, 1, 1}, block[3] = {threads, 1, 1};
    header_ = BufferHeader::for_launch(groups, max_events, clock, grid, block, version);
    bytes.assign(header_.buffer_bytes(), 0);
    encode_buffer_header(header_, bytes.data());
    cursors_.assign(header_.num_rows, 0);
  }
  uint32_t &cursor(uint32_t cta, uint32_t group) { return cursors_[row_index(cta, group)]; }
  uint32_t row_index(uint32_t cta, uint32_t group) const {
    return cta / header_.cta_stride * header_.num_groups + group;
  }

  BufferHeader header_;

private:
  std::vector<uint32_t> cursors_;
};

class BufferBuilder : public RowsBuilder {
public:
  BufferBuilder(uint32_t ctas, uint32_t groups, uint32_t max_events, Clock clock = Clock::clock64,
                uint32_t threads = 64)
      : RowsBuilder(ctas, groups, max_events, clock, threads, kFormatVersion) {}

  // Like Group::record: stores while there is room, always counts.
  void event(uint32_t cta, uint32_t group, RecordKind kind, uint32_t site, int32_t payload,
             uint64_t ts) {
    uint32_t &cursor = this->cursor(cta, group);
    if (cursor < header_.max_events) {
      const size_t at = row_at(cta, group) + kRowHeaderBytes + size_t(cursor) * kLegacyRecordBytes;
      put32(bytes, at, uint32_t(kind) << kRecordKindShift | site);
      put32(bytes, at + 4, uint32_t(payload));
      put64(bytes, at + 8, ts);
    }
    ++cursor;
  }
};

// Version 3: 8-byte slots {head, low 32 bits of the time or a payload}, written with the rules
// of cutrace/device.h (Group::emit, Group::range): a payload of 0 is not stored; a scoped range
// is one record written at its end: wide (16 bytes: head and payload, begin and end; what the
// device writes) or narrow (8 bytes, CUTRACE_NARROW_RANGES: head with its length and its end;
// one of 2^14 - 1 ticks or more followed by its EXT record).
class Buffer8Builder : public RowsBuilder {
public:
  Buffer8Builder(uint32_t ctas, uint32_t groups, uint32_t max_events, Clock clock = Clock::clock64,
                 uint32_t threads = 64)
      : RowsBuilder(ctas, groups, max_events, clock, threads, kRecordFormatVersion) {}

  size_t record_at(uint32_t cta, uint32_t group, uint32_t i) const {
    return row_at(cta, group) + kRowHeaderBytes + size_t(i) * kRecordBytes;
  }
  // One slot: stored while there is room, always counted.
  void slot(uint32_t cta, uint32_t group, uint32_t head, uint32_t data) {
    uint32_t &cursor = this->cursor(cta, group);
    if (cursor < header_.max_events) {
      put32(bytes, record_at(cta, group, cursor), head);
      put32(bytes, record_at(cta, group, cursor) + 4, data);
    }
    ++cursor;
  }
  static uint32_t head(RecordKind kind, uint32_t site) {
    return uint32_t(kind) << kKindShift | site;
  }
  void event(uint32_t cta, uint32_t group, RecordKind kind, uint32_t site, int32_t payload,
             uint64_t ts) {
    slot(cta, group, head(kind, site), uint32_t(ts));
    if (payload != 0 && kind != RecordKind::end)
      slot(cta, group, head(RecordKind::payload, site), uint32_t(payload));
  }
  void range(uint32_t cta, uint32_t group, uint32_t site, int32_t payload, uint64_t begin,
             uint64_t end) {
    slot(cta, group, kRangeBit | kWideRange | site, uint32_t(payload));
    slot(cta, group, uint32_t(begin), uint32_t(end));
  }
  void narrow_range(uint32_t cta, uint32_t group, uint32_t site, int32_t payload, uint64_t begin,
                    uint64_t end) {
    const uint32_t length = uint32_t(end) - uint32_t(begin);
    const uint32_t shown = length < kRangeLong ? length : kRangeLong;
    slot(cta, group, kRangeBit | shown << kRangeLengthShift | site, uint32_t(end));
    if (shown == kRangeLong)
      slot(cta, group, head(RecordKind::ext, site), uint32_t(begin));
    if (payload != 0)
      slot(cta, group, head(RecordKind::payload, site), uint32_t(payload));
  }
};

} // namespace cutrace::test_support

#endif
