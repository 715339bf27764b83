// Synthetic device buffers laid out exactly as runtime/include/cutrace/device.h writes them (the
// host is little endian, as the GPU is): for decoder tests, export tests and the trace generator.
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

class BufferBuilder {
public:
  BufferBuilder(uint32_t ctas, uint32_t groups, uint32_t max_events, Clock clock = Clock::clock64,
                uint32_t threads = 64) {
    const uint32_t grid[3] = {ctas, 1, 1}, block[3] = {threads, 1, 1};
    header_ = BufferHeader::for_launch(groups, max_events, clock, grid, block);
    bytes.assign(header_.buffer_bytes(), 0);
    encode_buffer_header(header_, bytes.data());
    cursors_.assign(header_.num_rows, 0);
  }

  const BufferHeader &header() const { return header_; }
  size_t row_at(uint32_t cta, uint32_t group) const {
    return kBufferHeaderBytes + size_t(cta * header_.num_groups + group) * header_.row_stride_bytes;
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
  // Like Group::record: stores while there is room, always counts.
  void event(uint32_t cta, uint32_t group, RecordKind kind, uint32_t site, int32_t payload,
             uint64_t ts) {
    uint32_t &cursor = cursors_[cta * header_.num_groups + group];
    if (cursor < header_.max_events) {
      const size_t at = row_at(cta, group) + kRowHeaderBytes + size_t(cursor) * kRecordBytes;
      put32(bytes, at, uint32_t(kind) << kRecordKindShift | site);
      put32(bytes, at + 4, uint32_t(payload));
      put64(bytes, at + 8, ts);
    }
    ++cursor;
  }
  void end(uint32_t cta, uint32_t group, uint64_t ns, uint64_t cycles) {
    const size_t at = row_at(cta, group);
    const uint32_t attempted = cursors_[cta * header_.num_groups + group];
    put32(bytes, at + 32, kRowEndTag);
    put32(bytes, at + 36, attempted);
    put64(bytes, at + 40, ns);
    put64(bytes, at + 48, cycles);
    put32(bytes, at + 56, attempted > header_.max_events ? attempted - header_.max_events : 0);
  }

  std::vector<uint8_t> bytes;

private:
  BufferHeader header_;
  std::vector<uint32_t> cursors_;
};

} // namespace cutrace::test_support

#endif
