// The `.ctrace` container: magic, version, then length-prefixed sections (docs/FORMAT.md).
#include <cutrace/ctrace.h>

#include "bytes.h"

#include <cstring>

namespace cutrace {

namespace {

constexpr uint32_t tag(const char (&s)[5]) {
  return uint32_t(uint8_t(s[0])) | uint32_t(uint8_t(s[1])) << 8 | uint32_t(uint8_t(s[2])) << 16 |
         uint32_t(uint8_t(s[3])) << 24;
}
constexpr uint32_t kMapTag = tag("MAP "), kGeometryTag = tag("GEOM"), kBufferTag = tag("BUF ");
constexpr uint32_t kPreambleBytes = 16, kSectionHeaderBytes = 16, kGeometryBytes = 32;

void append_section(std::vector<uint8_t> &out, uint32_t section, const uint8_t *data, size_t size) {
  bytes::append_u32(out, section);
  bytes::append_u32(out, 0); // flags, none defined in version 1
  bytes::append_u64(out, size);
  out.insert(out.end(), data, data + size);
}

} // namespace

std::vector<uint8_t> encode_ctrace(const Ctrace &c) {
  std::vector<uint8_t> out(kCtraceMagic, kCtraceMagic + sizeof kCtraceMagic);
  bytes::append_u32(out, kCtraceVersion);
  bytes::append_u32(out, 3); // section count
  append_section(out, kMapTag, reinterpret_cast<const uint8_t *>(c.map_json.data()),
                 c.map_json.size());
  uint8_t geometry[kGeometryBytes] = {};
  for (int i = 0; i < 3; ++i) {
    bytes::put_u32(geometry + 4 * i, c.grid[i]);
    bytes::put_u32(geometry + 12 + 4 * i, c.block[i]);
  }
  bytes::put_u32(geometry + 24, c.launch_index);
  append_section(out, kGeometryTag, geometry, sizeof geometry);
  append_section(out, kBufferTag, c.buffer.data(), c.buffer.size());
  return out;
}

Expected<Ctrace> parse_ctrace(const uint8_t *data, size_t size) {
  using E = Expected<Ctrace>;
  if (data == nullptr || size < kPreambleBytes ||
      std::memcmp(data, kCtraceMagic, sizeof kCtraceMagic) != 0)
    return E::failure("not a .ctrace file (bad magic)");
  const uint32_t version = bytes::u32(data + 8);
  if (version != kCtraceVersion)
    return E::failure(".ctrace version " + std::to_string(version) + " is not supported");
  const uint32_t sections = bytes::u32(data + 12);
  Ctrace c;
  bool have_map = false, have_geometry = false, have_buffer = false;
  size_t at = kPreambleBytes;
  for (uint32_t i = 0; i < sections; ++i) {
    if (size - at < kSectionHeaderBytes)
      return E::failure(".ctrace truncated in section header " + std::to_string(i));
    const uint32_t section = bytes::u32(data + at);
    const uint64_t length = bytes::u64(data + at + 8);
    at += kSectionHeaderBytes;
    if (length > size - at)
      return E::failure(".ctrace truncated: section " + std::to_string(i) + " needs " +
                        std::to_string(length) + " bytes, " + std::to_string(size - at) + " left");
    const uint8_t *body = data + at;
    if (section == kMapTag) {
      c.map_json.assign(reinterpret_cast<const char *>(body), length);
      have_map = true;
    } else if (section == kGeometryTag) {
      if (length < kGeometryBytes)
        return E::failure(".ctrace geometry section is too short");
      for (int k = 0; k < 3; ++k) {
        c.grid[k] = bytes::u32(body + 4 * k);
        c.block[k] = bytes::u32(body + 12 + 4 * k);
      }
      c.launch_index = bytes::u32(body + 24);
      have_geometry = true;
    } else if (section == kBufferTag) {
      c.buffer.assign(body, body + length);
      have_buffer = true;
    } // unknown sections are skipped: later minor additions stay readable
    at += length;
  }
  if (!have_map || !have_geometry || !have_buffer)
    return E::failure(".ctrace lacks a required section (MAP, GEOM, BUF)");
  return E{std::move(c), {}};
}

} // namespace cutrace
