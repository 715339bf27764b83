#include "run_file.h"
#include "clock_alignment.h"
#include "outputs.h"
#include "process_identity.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <nlohmann/json.hpp>

namespace cutrace {

namespace fs = std::filesystem;

std::string program_name() {
  std::error_code ec; // /proc/self/comm would cut the name at 15 characters
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && !exe.filename().empty())
    return exe.filename().string();
  std::ifstream comm("/proc/self/comm");
  std::string name;
  if (std::getline(comm, name) && !name.empty())
    return name;
  return "program";
}

// Said with every failure to create a file in the output folder: where that folder comes from.
const char *const kOutputFolderHint =
    " (the output folder: set CUTRACE_OUTPUT, or call cutrace::enable(dir), to a folder this "
    "program can write)";

RunFile::RunFile(std::string dir, std::string launches, std::string kernels, LaunchCoding coding)
    : dir_(std::move(dir)), launches_(std::move(launches)), kernels_(std::move(kernels)),
      coding_(coding) {}

void RunFile::fail_locked(const std::string &why) {
  if (!failed_)
    std::fprintf(stderr, "cutrace: %s; recording stops, the program goes on\n", why.c_str());
  failed_ = true;
  writer_.reset();
}

bool RunFile::open_locked() {
  if (writer_ || failed_ || finished_)
    return writer_ != nullptr;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) {
    fail_locked("cannot create " + dir_ + ": " + ec.message() + kOutputFolderHint);
    return false;
  }
  const std::string program = program_name();
  const std::string stem =
      (fs::path(dir_) / (plain_file_name(program, "program") + "." + std::to_string(::getpid())))
          .string();
  const std::optional<uint64_t> clock_error = host_clock_error_ns();
  const std::string run_json = nlohmann::json{
      {"format_version", 2},
      {"program", program},
      {"pid", ::getpid()},
      {"host", host_name()},
      {"rank", job_rank_from_env()},
      {"local_rank", local_rank_from_env()},
      {"start_unix_ns", host_now_ns()},
      {"host_clock_error_ns", clock_error ? nlohmann::json(*clock_error) : nullptr},
      {"launches", launches_},
      {"kernels", kernels_}}.dump();
  // Never replaces a file: a recycled pid or a second run in the same folder gets `_1`, `_2`...
  for (unsigned n = 0; n < 1000; ++n) {
    const std::string path = stem + (n ? "_" + std::to_string(n) : "") + ".ctrace";
    Expected<RunWriter *> w = RunWriter::create(path, run_json);
    if (w) {
      writer_.reset(*w);
      writer_->set_launch_coding(coding_);
      path_ = path;
      return true;
    }
    if (!fs::exists(path, ec)) {
      fail_locked(w.error + kOutputFolderHint);
      return false;
    }
  }
  fail_locked("no free file name for " + stem + ".ctrace");
  return false;
}

std::optional<uint32_t> RunFile::map_index(const KernelMap &map) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string json = map.json ? map.json : "";
  if (const auto it = maps_.find(json); it != maps_.end())
    return it->second;
  if (!open_locked())
    return std::nullopt;
  if (std::optional<std::string> err = writer_->add_map(json)) {
    fail_locked(*err);
    return std::nullopt;
  }
  const uint32_t index = uint32_t(maps_.size());
  maps_.emplace(json, index);
  return index;
}

bool RunFile::has_device(int ordinal) {
  std::lock_guard<std::mutex> lock(mu_);
  return devices_.count(ordinal) != 0;
}

void RunFile::add_device(int ordinal, const std::string &device_json) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!devices_.insert(ordinal).second || !open_locked())
    return;
  if (std::optional<std::string> err = writer_->add_device(device_json))
    fail_locked(*err);
}

bool RunFile::add_launch(const LaunchRecord &launch) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!open_locked())
    return false;
  if (std::optional<std::string> err = writer_->add_launch(launch)) {
    fail_locked(*err);
    return false;
  }
  return true;
}

std::string RunFile::finish(const std::string &end_json) {
  std::lock_guard<std::mutex> lock(mu_);
  if (writer_) {
    bytes_ = writer_->bytes_written();
    if (std::optional<std::string> err = writer_->finish(end_json))
      fail_locked(*err);
    writer_.reset();
  }
  finished_ = true;
  return path_;
}

uint64_t RunFile::bytes_written() {
  std::lock_guard<std::mutex> lock(mu_);
  return writer_ ? writer_->bytes_written() : bytes_;
}

std::string RunFile::path() {
  std::lock_guard<std::mutex> lock(mu_);
  return path_;
}

} // namespace cutrace
