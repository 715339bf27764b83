// The protobuf wire format, the little of it the Perfetto trace writer needs (pftrace_writer.h):
// varints, fixed64, doubles and length-delimited fields appended to a byte string. A nested
// message is built in a ProtoMessage of its own, then appended as one field. Internal to
// cutrace_analysis.
#ifndef CUTRACE_ANALYSIS_PROTO_WIRE_H
#define CUTRACE_ANALYSIS_PROTO_WIRE_H

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace cutrace::proto {

enum WireType : uint32_t { varint_type = 0, fixed64_type = 1, length_type = 2 };

class ProtoMessage {
public:
  void clear() { bytes_.clear(); }
  bool empty() const { return bytes_.empty(); }
  const std::string &bytes() const { return bytes_; }

  void varint(uint32_t field, uint64_t v) {
    tag(field, varint_type);
    raw_varint(v);
  }
  // int32/int64 fields: two's complement, as protobuf encodes them (10 bytes when negative).
  void signed_varint(uint32_t field, int64_t v) { varint(field, uint64_t(v)); }
  void boolean(uint32_t field, bool v) { varint(field, v ? 1 : 0); }
  void fixed64(uint32_t field, uint64_t v) {
    tag(field, fixed64_type);
    char b[8];
    for (int i = 0; i < 8; ++i)
      b[i] = char(uint8_t(v >> (8 * i)));
    bytes_.append(b, 8);
  }
  void real(uint32_t field, double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    fixed64(field, bits);
  }
  void bytes(uint32_t field, std::string_view v) {
    tag(field, length_type);
    raw_varint(v.size());
    bytes_.append(v.data(), v.size());
  }
  void message(uint32_t field, const ProtoMessage &m) { bytes(field, m.bytes_); }
  // Fields already encoded (repeated fields built apart).
  void append(const ProtoMessage &fields) { bytes_ += fields.bytes_; }

private:
  void tag(uint32_t field, WireType type) { raw_varint((uint64_t(field) << 3) | type); }
  void raw_varint(uint64_t v) {
    char b[10];
    size_t n = 0;
    while (v >= 0x80) {
      b[n++] = char(uint8_t(v) | 0x80);
      v >>= 7;
    }
    b[n++] = char(v);
    bytes_.append(b, n);
  }
  std::string bytes_;
};

} // namespace cutrace::proto

#endif // CUTRACE_ANALYSIS_PROTO_WIRE_H
