// Whole-file reads (bounded) and atomic writes (temp file + rename, or + link for no-clobber).
#include <cutrace/ctrace.h>
#include <cutrace/output_files.h>

#include "section_source.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <new>
#include <sys/stat.h>
#include <unistd.h>

namespace cutrace {

namespace fs = std::filesystem;

namespace {

std::string too_large(const std::string &path, uint64_t max_bytes) {
  return "cannot read '" + path + "': larger than " + std::to_string(max_bytes >> 20) +
         " MiB, the bound for an input";
}

} // namespace

namespace format {

Expected<std::vector<uint8_t>> read_to_end(int fd, const std::string &path,
                                           std::vector<uint8_t> data, uint64_t max_bytes) {
  using E = Expected<std::vector<uint8_t>>;
  constexpr size_t kChunk = size_t(1) << 20;
  for (;;) {
    const size_t at = data.size();
    if (at > max_bytes)
      return E::failure(too_large(path, max_bytes));
    try {
      data.resize(at + kChunk);
    } catch (const std::bad_alloc &) { // a memory limit below the bound: say so, not abort
      return E::failure("cannot read '" + path + "': out of memory after " +
                        std::to_string(at >> 20) + " MiB");
    }
    const ssize_t got = ::read(fd, data.data() + at, kChunk);
    if (got < 0 && errno == EINTR) {
      data.resize(at);
      continue;
    }
    if (got < 0)
      return E::failure("cannot read '" + path + "': " + std::strerror(errno));
    data.resize(at + size_t(got));
    if (got == 0)
      break;
  }
  if (data.size() > max_bytes)
    return E::failure(too_large(path, max_bytes));
  return {std::move(data), {}};
}

} // namespace format

Expected<std::vector<uint8_t>> read_file(const std::string &path, uint64_t max_bytes) {
  // POSIX reads: a directory or a read error is an error value with the reason, never an
  // exception from a stream. A pipe or a device has no size to check first: it is read up to
  // `max_bytes`, so /dev/zero is an error, not memory exhausted.
  using E = Expected<std::vector<uint8_t>>;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return E::failure("cannot read '" + path + "': " + std::strerror(errno));
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && uint64_t(st.st_size) > max_bytes)
    return E::failure(too_large(path, max_bytes));
  return format::read_to_end(fd, path, {}, max_bytes);
}

namespace {

std::optional<std::string> write_bytes_atomic(const std::string &path, const char *data,
                                              size_t size, Overwrite mode) {
  static std::atomic<unsigned> counter{0};
  const std::string tmp = temporary_name_beside(path, std::to_string(::getpid()) + "." +
                                                          std::to_string(counter.fetch_add(1)));
  {
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0)
      return "cannot create " + tmp + ": " + std::strerror(errno);
    int err = write_all(fd, data, size);
    if (::close(fd) != 0 && !err)
      err = errno;
    if (err) {
      ::unlink(tmp.c_str());
      return "cannot write " + tmp + ": " + std::strerror(err);
    }
  }
  std::error_code ec;
  if (mode == Overwrite::replace) {
    fs::rename(tmp, path, ec);
  } else {
    // link() refuses an existing target, which rename() would silently replace.
    fs::create_hard_link(tmp, path, ec);
    std::error_code ignored;
    fs::remove(tmp, ignored);
  }
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    return "cannot write " + path + ": " + ec.message();
  }
  return std::nullopt;
}

} // namespace

std::optional<std::string> write_file_atomic(const std::string &path, const std::string &data,
                                             Overwrite mode) {
  return write_bytes_atomic(path, data.data(), data.size(), mode);
}

std::optional<std::string> write_file_atomic(const std::string &path,
                                             const std::vector<uint8_t> &data, Overwrite mode) {
  return write_bytes_atomic(path, reinterpret_cast<const char *>(data.data()), data.size(), mode);
}

std::optional<std::string> write_ctrace_file(const std::string &path, const Ctrace &c,
                                             Overwrite mode) {
  const fs::path folder = fs::path(path).parent_path();
  std::error_code ec;
  if (!folder.empty() && !fs::is_directory(folder, ec)) {
    fs::create_directories(folder, ec);
    if (ec)
      return "cannot create folder " + folder.string() + ": " + ec.message();
  }
  return write_file_atomic(path, encode_ctrace(c), mode);
}

} // namespace cutrace
