// Checked, all-or-nothing outputs (cutrace/output_files.h), shared by trace-rewrite and
// trace-view so that both keep the same promises about files (docs/cli.md, "Outputs").
#include <cutrace/output_files.h>

#include "write_behind.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace cutrace {
namespace {

namespace fs = std::filesystem;

enum class Kind { missing, regular, special, directory, dangling_link, link_loop, unreadable };

struct Resolved {
  Kind kind = Kind::missing;
  std::string target; // the file a regular output renames onto: a link's target, not the link
  int error = 0;      // errno, for unreadable
};

// What writing `path` would meet. A symbolic link is followed to the file it names.
Resolved resolve(const std::string &path) {
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0) {
    if (errno == ELOOP) // a loop in a folder of the path
      return {Kind::link_loop, path, ELOOP};
    return {Kind::missing, path, errno};
  }
  struct stat file {};
  if (::stat(path.c_str(), &file) != 0) {
    const int err = errno;
    if (err == ENOENT && S_ISLNK(link.st_mode))
      return {Kind::dangling_link, path, err};
    if (err == ELOOP)
      return {Kind::link_loop, path, err};
    return {Kind::unreadable, path, err};
  }
  if (S_ISDIR(file.st_mode))
    return {Kind::directory, path, 0};
  if (!S_ISREG(file.st_mode))
    return {Kind::special, path, 0};
  if (!S_ISLNK(link.st_mode))
    return {Kind::regular, path, 0};
  char *real = ::realpath(path.c_str(), nullptr);
  if (!real)
    return {Kind::unreadable, path, errno};
  Resolved r{Kind::regular, real, 0};
  std::free(real);
  return r;
}

// One file: the same device and inode when both exist (hard links, symbolic links, other
// spellings), else the same path once the folders that exist are resolved.
bool same_file(const std::string &a, const std::string &b) {
  struct stat sa {};
  struct stat sb {};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  std::error_code ea, eb;
  const fs::path pa = fs::weakly_canonical(fs::absolute(a), ea);
  const fs::path pb = fs::weakly_canonical(fs::absolute(b), eb);
  if (ea || eb)
    return fs::absolute(a).lexically_normal() == fs::absolute(b).lexically_normal();
  return pa == pb;
}

std::string quoted(const std::string &path) { return "'" + path + "'"; }

OutputFailure cannot_write(const std::string &path, const std::string &why) {
  if (path == "-")
    return {path, "cannot write to stdout: " + why};
  return {path, "cannot write " + quoted(path) + ": " + why};
}

std::string unique_suffix() {
  static std::atomic<unsigned> counter{0};
  return std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
}

size_t name_max(const std::string &folder) {
  const long n = ::pathconf(folder.empty() ? "." : folder.c_str(), _PC_NAME_MAX);
  return n > 0 ? size_t(n) : size_t(NAME_MAX);
}

} // namespace

std::string temporary_name_beside(const std::string &target, const std::string &unique) {
  const fs::path p(target);
  const std::string folder = p.parent_path().string();
  const std::string name = p.filename().string();
  const std::string suffix = ".tmp-" + unique;
  const size_t max = name_max(folder);
  const size_t keep = max > suffix.size() + 1 ? max - suffix.size() : 1;
  const std::string temp = name.substr(0, keep) + suffix;
  return folder.empty() ? temp : (p.parent_path() / temp).string();
}

int write_all(int fd, const char *data, size_t size) {
  while (size > 0) {
    const ssize_t put = ::write(fd, data, std::min<size_t>(size, size_t(1) << 30));
    if (put < 0 && errno == EINTR)
      continue;
    if (put <= 0)
      return put < 0 ? errno : EIO;
    data += put, size -= size_t(put);
  }
  return 0;
}

std::optional<OutputClash> find_output_clash(const std::vector<std::string> &inputs,
                                             const std::vector<std::string> &outputs,
                                             bool outputs_may_be_inputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string &out = outputs[i];
    if (out == "-")
      continue;
    const Kind kind = resolve(out).kind;
    if (kind == Kind::directory)
      return OutputClash{OutputRefusal::directory, i, 0};
    if (kind == Kind::dangling_link)
      return OutputClash{OutputRefusal::dangling_link, i, 0};
    if (kind == Kind::link_loop)
      return OutputClash{OutputRefusal::link_loop, i, 0};
    if (!outputs_may_be_inputs)
      for (size_t j = 0; j < inputs.size(); ++j)
        if (same_file(out, inputs[j]))
          return OutputClash{OutputRefusal::input, i, j};
    for (size_t j = 0; j < i; ++j)
      if (outputs[j] != "-" && same_file(out, outputs[j]))
        return OutputClash{OutputRefusal::twice, i, j};
  }
  return std::nullopt;
}

std::string describe_clash(const OutputClash &clash, const std::vector<std::string> &inputs,
                           const std::vector<std::string> &outputs) {
  const std::string &out = outputs[clash.output];
  switch (clash.why) {
  case OutputRefusal::directory:
    return quoted(out) + " is a directory";
  case OutputRefusal::input:
    return inputs[clash.other] == out ? quoted(out) + " is an input file"
                                      : quoted(out) + " is an input file (" +
                                            quoted(inputs[clash.other]) + " under another name)";
  case OutputRefusal::twice:
    return outputs[clash.other] == out
               ? quoted(out) + " is named twice"
               : quoted(out) + " and " + quoted(outputs[clash.other]) + " are one file";
  case OutputRefusal::dangling_link:
    return quoted(out) + " is a symbolic link to a file that does not exist";
  case OutputRefusal::link_loop:
    return quoted(out) + " is a symbolic link that never reaches a file (a loop)";
  }
  return quoted(out);
}

OutputSet::~OutputSet() { discard(); }

void OutputSet::discard() {
  for (const Staged &s : staged_) {
    ::unlink(s.temp.c_str());
    forget_temp(s.interrupt_slot);
  }
  staged_.clear();
  direct_.clear();
}

std::optional<OutputFailure> OutputSet::add(const std::string &path, std::string_view data) {
  return add_made(
      path,
      [&](const Sink &sink) -> std::optional<std::string> {
        if (!sink(data))
          return std::string(); // the sink's own reason is used
        return std::nullopt;
      },
      false);
}

std::optional<OutputFailure>
OutputSet::add_streamed(const std::string &path,
                        const std::function<std::optional<std::string>(const Sink &)> &produce) {
  return add_made(path, produce, true);
}

std::optional<OutputFailure>
OutputSet::add_made(const std::string &path,
                    const std::function<std::optional<std::string>(const Sink &)> &produce,
                    bool behind) {
  const Resolved r = path == "-" ? Resolved{Kind::special, path, 0} : resolve(path);
  std::optional<OutputFailure> failure;
  switch (r.kind) {
  case Kind::special: {
    std::string data;
    if (std::optional<std::string> why = produce([&](std::string_view piece) {
          data.append(piece.data(), piece.size());
          return true;
        })) {
      failure = cannot_write(path, *why);
      break;
    }
    direct_.push_back({path, std::move(data)});
    return std::nullopt;
  }
  case Kind::directory:
    failure = cannot_write(path, std::strerror(EISDIR));
    break;
  case Kind::dangling_link:
    failure = cannot_write(path, "a symbolic link to a file that does not exist");
    break;
  case Kind::link_loop:
    failure = cannot_write(path, std::strerror(ELOOP));
    break;
  case Kind::unreadable:
    failure = cannot_write(path, std::strerror(r.error));
    break;
  case Kind::missing:
  case Kind::regular: {
    const fs::path folder = fs::path(r.target).parent_path();
    std::error_code ec;
    if (r.kind == Kind::missing && !folder.empty() && !fs::is_directory(folder, ec)) {
      fs::create_directories(folder, ec);
      if (ec) {
        failure = cannot_write(path, "cannot create folder " + quoted(folder.string()) + ": " +
                                         ec.message());
        break;
      }
    }
    // A name the folder cannot hold fails here, not at the rename after other outputs are in place.
    if (fs::path(r.target).filename().string().size() > name_max(folder.string())) {
      failure = cannot_write(path, std::strerror(ENAMETOOLONG));
      break;
    }
    int fd = -1;
    std::string temp;
    for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
      temp = temporary_name_beside(r.target, unique_suffix());
      fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd < 0 && errno != EEXIST)
        break;
    }
    if (fd < 0) {
      failure = cannot_write(path, std::strerror(errno));
      break;
    }
    staged_.push_back({path, r.target, temp, remember_temp(temp.c_str())});
    int err = 0;
    std::optional<std::string> why;
    if (behind) { // the pieces are written by a thread of their own while the next are made
      WriteBehind writer(fd);
      why = produce([&](std::string_view piece) { return writer.put(piece); });
      err = writer.finish();
    } else {
      why = produce([&](std::string_view piece) {
        err = err ? err : write_all(fd, piece.data(), piece.size());
        return err == 0;
      });
    }
    if (::close(fd) != 0 && !err)
      err = errno;
    if (err)
      failure = cannot_write(path, std::strerror(err));
    else if (why)
      failure = cannot_write(path, *why);
    break;
  }
  }
  if (failure)
    discard();
  return failure;
}

std::optional<OutputFailure> OutputSet::commit() {
  // What cannot be staged (stdout, a device) is written first: when it fails, no file of the set
  // has replaced anything yet.
  std::vector<Direct> direct = std::move(direct_);
  direct_.clear();
  for (const Direct &d : direct) {
    const int fd =
        d.path == "-" ? STDOUT_FILENO : ::open(d.path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    int err = fd < 0 ? errno : write_all(fd, d.data.data(), d.data.size());
    if (fd >= 0 && d.path != "-" && ::close(fd) != 0 && !err)
      err = errno;
    if (err) {
      discard();
      return cannot_write(d.path, std::strerror(err));
    }
  }
  for (size_t i = 0; i < staged_.size(); ++i) {
    if (::rename(staged_[i].temp.c_str(), staged_[i].target.c_str()) != 0) {
      const OutputFailure failure = cannot_write(staged_[i].path, std::strerror(errno));
      staged_.erase(staged_.begin(), staged_.begin() + long(i));
      discard();
      return failure;
    }
    forget_temp(staged_[i].interrupt_slot); // after the rename: the temporary name is gone
  }
  staged_.clear();
  return std::nullopt;
}

std::string rename_target(const std::string &path) {
  const Resolved r = resolve(path);
  return r.kind == Kind::regular ? r.target : path;
}

} // namespace cutrace
