// The run container (`.ctrace` version 2, docs/FORMAT.md, "Runs"): written section by section
// while the program runs; read whole, a version 1 file as a run of one launch.
#include <cutrace/run.h>

#include "bytes.h"
#include "section_source.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <tuple>
#include <unistd.h>

namespace cutrace {

namespace {

constexpr uint32_t tag(const char (&s)[5]) {
  return uint32_t(uint8_t(s[0])) | uint32_t(uint8_t(s[1])) << 8 | uint32_t(uint8_t(s[2])) << 16 |
         uint32_t(uint8_t(s[3])) << 24;
}
constexpr uint32_t kRunTag = tag("RUN "), kDeviceTag = tag("DEV "), kMapTag = tag("MAP "),
                   kLaunchTag = tag("LNCH"), kEndTag = tag("END ");
// Section count of a run written as it goes: the sections run to the end of the file.
constexpr uint32_t kSectionsToEnd = 0xFFFFFFFFu;
constexpr uint32_t kLaunchFixedBytes = 64;
using format::kPreambleBytes;
using format::kSectionHeaderBytes;
using E = Expected<Run>;

std::vector<uint8_t> section(uint32_t section_tag, const uint8_t *data, size_t size) {
  std::vector<uint8_t> out;
  out.reserve(kSectionHeaderBytes + size);
  bytes::append_u32(out, section_tag);
  bytes::append_u32(out, 0); // flags, none defined
  bytes::append_u64(out, size);
  out.insert(out.end(), data, data + size);
  return out;
}

std::vector<uint8_t> text_section(uint32_t section_tag, const std::string &text) {
  return section(section_tag, reinterpret_cast<const uint8_t *>(text.data()), text.size());
}

std::vector<uint8_t> preamble(uint32_t sections) {
  std::vector<uint8_t> out(kCtraceMagic, kCtraceMagic + sizeof kCtraceMagic);
  bytes::append_u32(out, kRunContainerVersion);
  bytes::append_u32(out, sections);
  return out;
}

void append(std::vector<uint8_t> &out, const std::vector<uint8_t> &more) {
  out.insert(out.end(), more.begin(), more.end());
}

LaunchRecord launch_from(const uint8_t *body, uint64_t length) {
  LaunchRecord l;
  l.map = bytes::u32(body);
  l.device = bytes::u32(body + 4);
  l.stream = bytes::u64(body + 8);
  l.launch_index = bytes::u32(body + 16);
  l.flags = bytes::u32(body + 20);
  for (int i = 0; i < 3; ++i) {
    l.grid[i] = bytes::u32(body + 24 + 4 * i);
    l.block[i] = bytes::u32(body + 36 + 4 * i);
  }
  l.host_enqueue_ns = bytes::u64(body + 48);
  l.sequence = bytes::u64(body + 56);
  l.buffer.assign(body + kLaunchFixedBytes, body + length);
  return l;
}

// Keeps the launch's buffer when it fits the budget; otherwise only its extent.
void keep_within(LaunchRecord &l, uint64_t &kept, uint64_t budget) {
  if (l.buffer.size() <= budget && kept <= budget - l.buffer.size()) {
    kept += l.buffer.size();
    return;
  }
  std::tie(l.first_ns, l.last_ns) = buffer_extent_ns(l.buffer.data(), l.buffer.size());
  l.buffer_dropped = true;
  std::vector<uint8_t>().swap(l.buffer);
}

// Sections of a version 2 run. A section cut short (a program killed while writing) ends the run
// with a problem; everything before it is kept.
template <class Source>
E parse_run_sections(Source &in, uint32_t sections, const RunReadOptions &options = {}) {
  Run run;
  uint64_t kept = 0; // launch buffer bytes kept so far
  std::vector<uint8_t> body;
  for (uint32_t i = 0; i < sections && in.left() > 0; ++i) {
    uint8_t header[kSectionHeaderBytes];
    if (in.left() < kSectionHeaderBytes) {
      run.problems.push_back("run truncated in section header " + std::to_string(i));
      break;
    }
    if (!in.read(header, sizeof header))
      return E::failure(in.error());
    const uint32_t section_tag = bytes::u32(header);
    const uint64_t length = bytes::u64(header + 8);
    if (length > in.left()) {
      run.problems.push_back("run truncated: section " + std::to_string(i) + " needs " +
                             std::to_string(length) + " bytes, " + std::to_string(in.left()) +
                             " left; it and anything after it are not read");
      break;
    }
    const bool known = section_tag == kRunTag || section_tag == kDeviceTag ||
                       section_tag == kMapTag || section_tag == kLaunchTag ||
                       section_tag == kEndTag;
    if (!known) { // later additions stay readable
      if (!in.skip(length))
        return E::failure(in.error());
      continue;
    }
    body.resize(length);
    if (!in.read(body.data(), length))
      return E::failure(in.error());
    const std::string text(body.begin(), body.end());
    if (section_tag == kRunTag)
      run.run_json = text;
    else if (section_tag == kDeviceTag)
      run.devices.push_back(text);
    else if (section_tag == kMapTag)
      run.maps.push_back(text);
    else if (section_tag == kEndTag)
      run.end_json = text;
    else if (length < kLaunchFixedBytes)
      run.problems.push_back("launch section " + std::to_string(i) + " is too short; skipped");
    else {
      run.launches.push_back(launch_from(body.data(), length));
      keep_within(run.launches.back(), kept, options.max_buffer_bytes);
    }
  }
  for (const LaunchRecord &l : run.launches)
    if (l.map >= run.maps.size())
      return E::failure("a launch names decode map " + std::to_string(l.map) + " of " +
                        std::to_string(run.maps.size()));
  return E{std::move(run), {}};
}

Run run_of_one(Ctrace &&c) {
  Run run;
  run.maps.push_back(std::move(c.map_json));
  LaunchRecord l;
  l.launch_index = c.launch_index;
  for (int i = 0; i < 3; ++i) {
    l.grid[i] = c.grid[i];
    l.block[i] = c.block[i];
  }
  l.buffer = std::move(c.buffer);
  run.launches.push_back(std::move(l));
  return run;
}

std::optional<std::string> preamble_problem(const uint8_t *data, size_t size) {
  if (data == nullptr || size < kPreambleBytes ||
      std::memcmp(data, kCtraceMagic, sizeof kCtraceMagic) != 0)
    return "not a .ctrace file (bad magic)";
  const uint32_t version = bytes::u32(data + 8);
  if (version != kCtraceVersion && version != kRunContainerVersion)
    return ".ctrace version " + std::to_string(version) + " is not supported (expected 1 or 2)";
  return std::nullopt;
}

} // namespace

std::vector<uint8_t> encode_launch_section(const LaunchRecord &l) {
  std::vector<uint8_t> body(kLaunchFixedBytes);
  uint8_t *p = body.data();
  bytes::put_u32(p, l.map);
  bytes::put_u32(p + 4, l.device);
  bytes::put_u64(p + 8, l.stream);
  bytes::put_u32(p + 16, l.launch_index);
  bytes::put_u32(p + 20, l.flags);
  for (int i = 0; i < 3; ++i) {
    bytes::put_u32(p + 24 + 4 * i, l.grid[i]);
    bytes::put_u32(p + 36 + 4 * i, l.block[i]);
  }
  bytes::put_u64(p + 48, l.host_enqueue_ns);
  bytes::put_u64(p + 56, l.sequence);
  body.insert(body.end(), l.buffer.begin(), l.buffer.end());
  return section(kLaunchTag, body.data(), body.size());
}

std::vector<uint8_t> encode_run(const Run &run) {
  std::vector<uint8_t> out = preamble(kSectionsToEnd);
  append(out, text_section(kRunTag, run.run_json));
  for (const std::string &d : run.devices)
    append(out, text_section(kDeviceTag, d));
  for (const std::string &m : run.maps)
    append(out, text_section(kMapTag, m));
  for (const LaunchRecord &l : run.launches)
    append(out, encode_launch_section(l));
  if (!run.end_json.empty())
    append(out, text_section(kEndTag, run.end_json));
  return out;
}

Expected<Run> parse_run(const uint8_t *data, size_t size) {
  if (std::optional<std::string> bad = preamble_problem(data, size))
    return E::failure(*bad);
  if (bytes::u32(data + 8) == kCtraceVersion) {
    Expected<Ctrace> one = parse_ctrace(data, size);
    if (!one)
      return E::failure(one.error);
    return E{run_of_one(std::move(*one)), {}};
  }
  format::MemorySource in(data + kPreambleBytes, size - kPreambleBytes);
  return parse_run_sections(in, bytes::u32(data + 12));
}

Expected<Run> read_run_file(const std::string &path, const RunReadOptions &options) {
  return format::read_trace_file<Run>(
      path,
      [&path, &options](format::FileSource &in, const uint8_t *head, size_t head_size) -> E {
        if (std::optional<std::string> bad = preamble_problem(head, head_size))
          return E::failure(*bad);
        if (bytes::u32(head + 8) == kCtraceVersion) { // one launch: small, read it whole
          Expected<Ctrace> one = read_ctrace_file(path);
          if (!one)
            return E::failure(one.error);
          return E{run_of_one(std::move(*one)), {}};
        }
        return parse_run_sections(in, bytes::u32(head + 12), options);
      },
      parse_run);
}

// ---- RunWriter ----

Expected<RunWriter *> RunWriter::create(const std::string &path, const std::string &run_json) {
  using W = Expected<RunWriter *>;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return W::failure("cannot create '" + path + "': " + std::strerror(errno));
  std::FILE *file = ::fdopen(fd, "wb");
  if (file == nullptr) {
    ::close(fd);
    return W::failure("cannot open '" + path + "': " + std::strerror(errno));
  }
  auto *writer = new RunWriter(file, path);
  std::optional<std::string> err = writer->write(preamble(kSectionsToEnd));
  if (!err)
    err = writer->write(text_section(kRunTag, run_json));
  if (err) {
    delete writer;
    return W::failure(*err);
  }
  return W{writer, {}};
}

RunWriter::~RunWriter() {
  if (file_ != nullptr)
    std::fclose(file_);
}

std::optional<std::string> RunWriter::write(const std::vector<uint8_t> &data) {
  if (file_ == nullptr)
    return "'" + path_ + "' is already finished";
  // Flushed per section: a crash loses at most the section being written (readers drop it).
  if (std::fwrite(data.data(), 1, data.size(), file_) != data.size() || std::fflush(file_) != 0)
    return "cannot write '" + path_ + "': " + std::strerror(errno);
  bytes_ += data.size();
  return std::nullopt;
}

std::optional<std::string> RunWriter::add_device(const std::string &device_json) {
  return write(text_section(kDeviceTag, device_json));
}
std::optional<std::string> RunWriter::add_map(const std::string &map_json) {
  return write(text_section(kMapTag, map_json));
}
std::optional<std::string> RunWriter::add_launch(const LaunchRecord &launch) {
  return write(encode_launch_section(launch));
}
std::optional<std::string> RunWriter::finish(const std::string &end_json) {
  std::optional<std::string> err = write(text_section(kEndTag, end_json));
  if (file_ != nullptr && std::fclose(file_) != 0 && !err)
    err = "cannot close '" + path_ + "': " + std::strerror(errno);
  file_ = nullptr;
  return err;
}

} // namespace cutrace
