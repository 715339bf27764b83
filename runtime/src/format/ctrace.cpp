// The `.ctrace` container: magic, version, then length-prefixed sections (docs/FORMAT.md); read
// from memory or, section by section, from a file.
#include <cutrace/ctrace.h>

#include "bytes.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

namespace {

using E = Expected<Ctrace>;

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

// The bytes after the preamble, in memory.
class MemorySource {
public:
  MemorySource(const uint8_t *data, size_t size) : data_(data), size_(size) {}
  uint64_t left() const { return size_ - at_; }
  bool read(void *to, size_t n) {
    if (n) // an empty section: `to` may be null, which memcpy must not see even for 0 bytes
      std::memcpy(to, data_ + at_, n);
    at_ += n;
    return true;
  }
  bool skip(uint64_t n) {
    at_ += n;
    return true;
  }
  std::string error() const { return {}; }

private:
  const uint8_t *data_;
  size_t size_, at_ = 0;
};

// The bytes after the preamble, read from a regular file section by section: each section goes
// straight to where it is kept, so a trace needs its size in memory once, not twice.
class FileSource {
public:
  FileSource(int fd, uint64_t left, std::string path) : fd_(fd), left_(left), path_(path) {}
  uint64_t left() const { return left_; }
  bool read(void *to, size_t n) {
    auto *p = static_cast<uint8_t *>(to);
    while (n > 0) {
      const ssize_t got = ::read(fd_, p, std::min<size_t>(n, size_t(1) << 30));
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0) {
        errno_ = got < 0 ? errno : EIO;
        return false;
      }
      p += got, n -= size_t(got), left_ -= uint64_t(got);
    }
    return true;
  }
  bool skip(uint64_t n) {
    if (::lseek(fd_, off_t(n), SEEK_CUR) < 0) {
      errno_ = errno;
      return false;
    }
    left_ -= n;
    return true;
  }
  std::string error() const { return "cannot read '" + path_ + "': " + std::strerror(errno_); }

private:
  int fd_;
  uint64_t left_;
  std::string path_;
  int errno_ = 0;
};

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
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return E::failure("cannot read '" + path + "': " + std::strerror(errno));
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    return E::failure("cannot read '" + path + "': " + std::strerror(errno));
  if (S_ISDIR(st.st_mode))
    return E::failure("cannot read '" + path + "': " + std::strerror(EISDIR));
  if (!S_ISREG(st.st_mode)) { // a pipe or a device: no size to check sections against
    Expected<std::vector<uint8_t>> data = read_file(path);
    if (!data)
      return E::failure(data.error);
    E c = parse_ctrace(data->data(), data->size());
    if (!c)
      c.error = path + ": " + c.error;
    return c;
  }
  // The preamble first: a file that is not a trace is rejected without reading its body.
  uint8_t preamble[kPreambleBytes] = {};
  const uint64_t size = uint64_t(st.st_size);
  FileSource in(fd, size, path);
  const size_t head = size_t(std::min<uint64_t>(size, kPreambleBytes));
  if (!in.read(preamble, head))
    return E::failure(in.error());
  if (std::optional<std::string> bad = preamble_error(preamble, head))
    return E::failure(path + ": " + *bad);
  E c = parse_sections(in, bytes::u32(preamble + 12));
  if (!c && c.error.rfind("cannot read '", 0) != 0)
    c.error = path + ": " + c.error;
  return c;
}

} // namespace cutrace
