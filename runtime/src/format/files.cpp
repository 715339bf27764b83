// Whole-file reads and atomic writes (temp file + rename, or + link for no-clobber).
#include <cutrace/ctrace.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace cutrace {

namespace fs = std::filesystem;

Expected<std::vector<uint8_t>> read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Expected<std::vector<uint8_t>>::failure("cannot open " + path);
  std::vector<uint8_t> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad())
    return Expected<std::vector<uint8_t>>::failure("cannot read " + path);
  return {std::move(data), {}};
}

Expected<Ctrace> read_ctrace_file(const std::string &path) {
  Expected<std::vector<uint8_t>> data = read_file(path);
  if (!data)
    return Expected<Ctrace>::failure(data.error);
  Expected<Ctrace> c = parse_ctrace(data->data(), data->size());
  if (!c)
    c.error = path + ": " + c.error;
  return c;
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

} // namespace cutrace
