// The protobuf wire format, the little of it the Perfetto trace writer needs (pftrace_writer.h):
// varints, fixed64, doubles and length-delimited fields appended to a byte string. A nested
// message is built in a ProtoMessage of its own, then appended as one field. Internal to
// cutrace_analysis.
#ifndef CUTRACE_ANALYSIS_PROTO_WIRE_H
#define CUTRACE_ANALYSIS_PROTO_WIRE_H

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace cutrace::proto {

enum WireType : uint32_t { varint_type = 0, fixed64_type = 1, length_type = 2 };

class ProtoMessage {
public:
  void clear() { size_ = 0; }
  bool empty() const { return size_ == 0; }
  std::string_view bytes() const { return {buf_.data(), size_}; }

  void varint(uint32_t field, uint64_t v) {
    reserve(20);
    tag(field, varint_type);
    raw_varint(v);
  }
  // int32/int64 fields: two's complement, as protobuf encodes them (10 bytes when negative).
  void signed_varint(uint32_t field, int64_t v) { varint(field, uint64_t(v)); }
  void boolean(uint32_t field, bool v) { varint(field, v ? 1 : 0); }
  void fixed64(uint32_t field, uint64_t v) {
    reserve(20);
    tag(field, fixed64_type);
    for (int i = 0; i < 8; ++i)
      buf_[size_++] = char(uint8_t(v >> (8 * i)));
  }
  void real(uint32_t field, double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    fixed64(field, bits);
  }
  void bytes(uint32_t field, std::string_view v) {
    reserve(20 + v.size());
    tag(field, length_type);
    raw_varint(v.size());
    std::memcpy(&buf_[size_], v.data(), v.size());
    size_ += v.size();
  }
  void message(uint32_t field, const ProtoMessage &m) { bytes(field, m.bytes()); }
  // Fields already encoded (repeated fields built apart).
  void append(const ProtoMessage &fields) {
    reserve(fields.size_);
    std::memcpy(&buf_[size_], fields.buf_.data(), fields.size_);
    size_ += fields.size_;
  }

private:
  void reserve(size_t more) {
    if (size_ + more > buf_.size())
      buf_.resize(std::max(2 * buf_.size(), size_ + more + 64));
  }
  void tag(uint32_t field, WireType type) { raw_varint((uint64_t(field) << 3) | type); }
  void raw_varint(uint64_t v) { // room was reserved
    while (v >= 0x80) {
      buf_[size_++] = char(uint8_t(v) | 0x80);
      v >>= 7;
    }
    buf_[size_++] = char(v);
  }
  std::string buf_; // its first size_ bytes are the message; grown, never shrunk
  size_t size_ = 0;
};

} // namespace cutrace::proto

#endif // CUTRACE_ANALYSIS_PROTO_WIRE_H
