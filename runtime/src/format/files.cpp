// Whole-file reads and atomic writes (temp file + rename, or + link for no-clobber).
#include <cutrace/ctrace.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace cutrace {

namespace fs = std::filesystem;

Expected<std::vector<uint8_t>> read_file(const std::string &path) {
  // POSIX reads: a directory or a read error is an error value with the reason, never an
  // exception from a stream.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return Expected<std::vector<uint8_t>>::failure("cannot read '" + path +
                                                   "': " + std::strerror(errno));
  std::vector<uint8_t> data;
  for (;;) {
    const size_t at = data.size();
    data.resize(at + (size_t(1) << 20));
    const ssize_t got = ::read(fd, data.data() + at, size_t(1) << 20);
    if (got < 0 && errno == EINTR) {
      data.resize(at);
      continue;
    }
    if (got < 0) {
      const int err = errno;
      ::close(fd);
      return Expected<std::vector<uint8_t>>::failure("cannot read '" + path +
                                                     "': " + std::strerror(err));
    }
    data.resize(at + size_t(got));
    if (got == 0)
      break;
  }
  ::close(fd);
  return {std::move(data), {}};
}

namespace {

std::optional<std::string> write_bytes_atomic(const std::string &path, const char *data,
                                              size_t size, Overwrite mode) {
  static std::atomic<unsigned> counter{0};
  const std::string tmp =
      path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      return "cannot create " + tmp;
    out.write(data, std::streamsize(size));
    out.close();
    if (!out) {
      std::error_code ignored;
      fs::remove(tmp, ignored);
      return "cannot write " + tmp;
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
