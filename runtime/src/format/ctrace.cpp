// The `.ctrace` container: magic, version, then length-prefixed sections (docs/FORMAT.md); read
// from memory or, section by section, from a file.
#include <cutrace/ctrace.h>

#include "bytes.h"
#include "section_source.h"

#include <algorithm>
#include <cstring>

namespace cutrace {

namespace {

constexpr uint32_t tag(const char (&s)[5]) {
  return uint32_t(uint8_t(s[0])) | uint32_t(uint8_t(s[1])) << 8 | uint32_t(uint8_t(s[2])) << 16 |
         uint32_t(uint8_t(s[3])) << 24;
}
constexpr uint32_t kMapTag = tag("MAP "), kGeometryTag = tag("GEOM"), kBufferTag = tag("BUF ");
using format::kPreambleBytes;
using format::kSectionHeaderBytes;
constexpr uint32_t kGeometryBytes = 32;

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

namespace {

using E = Expected<Ctrace>;
using format::FileSource;
using format::MemorySource;

// Magic and version, checked before anything else is read.
std::optional<std::string> preamble_error(const uint8_t *data, size_t size) {
  if (data == nullptr || size < kPreambleBytes ||
      std::memcmp(data, kCtraceMagic, sizeof kCtraceMagic) != 0)
    return "not a .ctrace file (bad magic)";
  const uint32_t version = bytes::u32(data + 8);
  if (version != kCtraceVersion)
    return ".ctrace version " + std::to_string(version) + " is not supported";
  return std::nullopt;
}

template <class Source> E parse_sections(Source &in, uint32_t sections) {
  Ctrace c;
  bool have_map = false, have_geometry = false, have_buffer = false;
  for (uint32_t i = 0; i < sections; ++i) {
    if (in.left() < kSectionHeaderBytes)
      return E::failure(".ctrace truncated in section header " + std::to_string(i));
    uint8_t header[kSectionHeaderBytes];
    if (!in.read(header, sizeof header))
      return E::failure(in.error());
    const uint32_t section = bytes::u32(header);
    const uint64_t length = bytes::u64(header + 8);
    if (length > in.left())
      return E::failure(".ctrace truncated: section " + std::to_string(i) + " needs " +
                        std::to_string(length) + " bytes, " + std::to_string(in.left()) + " left");
    bool read = true;
    if (section == kMapTag) {
      c.map_json.resize(length);
      read = in.read(c.map_json.data(), length);
      have_map = true;
    } else if (section == kGeometryTag) {
      if (length < kGeometryBytes)
        return E::failure(".ctrace geometry section is too short");
      uint8_t body[kGeometryBytes];
      read = in.read(body, sizeof body) && in.skip(length - kGeometryBytes);
      for (int k = 0; k < 3; ++k) {
        c.grid[k] = bytes::u32(body + 4 * k);
        c.block[k] = bytes::u32(body + 12 + 4 * k);
      }
      c.launch_index = bytes::u32(body + 24);
      have_geometry = true;
    } else if (section == kBufferTag) {
      c.buffer.resize(length);
      read = in.read(c.buffer.data(), length);
      have_buffer = true;
    } else { // unknown sections are skipped: later minor additions stay readable
      read = in.skip(length);
    }
    if (!read)
      return E::failure(in.error());
  }
  if (!have_map || !have_geometry || !have_buffer)
    return E::failure(".ctrace lacks a required section (MAP, GEOM, BUF)");
  return E{std::move(c), {}};
}

} // namespace

Expected<Ctrace> parse_ctrace(const uint8_t *data, size_t size) {
  if (std::optional<std::string> bad = preamble_error(data, size))
    return E::failure(*bad);
  MemorySource in(data + kPreambleBytes, size - kPreambleBytes);
  return parse_sections(in, bytes::u32(data + 12));
}

Expected<Ctrace> read_ctrace_file(const std::string &path) {
  return format::read_trace_file<Ctrace>(
      path,
      [](FileSource &in, const uint8_t *preamble, size_t head) -> E {
        if (std::optional<std::string> bad = preamble_error(preamble, head))
          return E::failure(*bad);
        return parse_sections(in, bytes::u32(preamble + 12));
      },
      parse_ctrace);
}

} // namespace cutrace
