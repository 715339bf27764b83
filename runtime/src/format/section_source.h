// Where the sections of a `.ctrace` file are read from: memory, or a regular file read section
// by section (docs/FORMAT.md, ".ctrace file"). Shared by the single-launch and the run readers.
#ifndef CUTRACE_SRC_FORMAT_SECTION_SOURCE_H
#define CUTRACE_SRC_FORMAT_SECTION_SOURCE_H

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include <cutrace/ctrace.h>

namespace cutrace::format {

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

inline constexpr uint32_t kPreambleBytes = 16, kSectionHeaderBytes = 16;

// Appends what is left to read from `fd` to `data`; more than `max_bytes` in all is an error.
Expected<std::vector<uint8_t>> read_to_end(int fd, const std::string &path,
                                           std::vector<uint8_t> data, uint64_t max_bytes);

// Reads a trace file: a regular file goes to `from_source(FileSource &, preamble, preamble size)`
// section by section; anything else (a pipe) is read whole and goes to `from_memory(data, size)`.
// Errors name the file.
template <class T, class FromSource, class FromMemory>
Expected<T> read_trace_file(const std::string &path, FromSource from_source,
                            FromMemory from_memory) {
  using E = Expected<T>;
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
  E result;
  if (!S_ISREG(st.st_mode)) { // a pipe or a device: no size to check sections against
    // Its preamble first, so that an endless stream that is not a trace (/dev/zero) is rejected
    // from its first bytes; a trace is read whole, up to kMaxInputBytes.
    std::vector<uint8_t> data(kPreambleBytes);
    size_t head = 0;
    while (head < kPreambleBytes) {
      const ssize_t got = ::read(fd, data.data() + head, kPreambleBytes - head);
      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        return E::failure("cannot read '" + path + "': " + std::strerror(errno));
      if (got == 0)
        break;
      head += size_t(got);
    }
    data.resize(head);
    if (head == kPreambleBytes &&
        std::memcmp(data.data(), kCtraceMagic, sizeof kCtraceMagic) == 0) {
      Expected<std::vector<uint8_t>> whole = read_to_end(fd, path, std::move(data), kMaxInputBytes);
      if (!whole)
        return E::failure(whole.error);
      data = std::move(*whole);
    }
    result = from_memory(data.data(), data.size());
  } else {
    // The preamble first: a file that is not a trace is rejected without reading its body.
    uint8_t preamble[kPreambleBytes] = {};
    FileSource in(fd, uint64_t(st.st_size), path);
    const size_t head = size_t(std::min<uint64_t>(uint64_t(st.st_size), kPreambleBytes));
    if (!in.read(preamble, head))
      return E::failure(in.error());
    result = from_source(in, preamble, head);
  }
  if (!result && result.error.rfind("cannot read '", 0) != 0)
    result.error = path + ": " + result.error;
  return result;
}

} // namespace cutrace::format

#endif // CUTRACE_SRC_FORMAT_SECTION_SOURCE_H
