// The run container (`.ctrace` version 2, docs/FORMAT.md, "Runs"): written section by section
// while the program runs; read whole, a version 1 file as a run of one launch.
#include <cutrace/run.h>

#include "bytes.h"
#include "delta_coding.h"
#include "section_source.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/uio.h>
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
// LNCH section flags: bit 0, the buffer is delta-coded: u64 its size, u32 the lag in words, then
// the code (format/delta_coding.h).
constexpr uint32_t kLaunchDeltaCoded = 1u, kCodedPrefixBytes = 12;
using format::kPreambleBytes;
using format::kSectionHeaderBytes;
using E = Expected<Run>;

std::vector<uint8_t> section(uint32_t section_tag, const uint8_t *data, size_t size,
                             uint32_t flags = 0) {
  std::vector<uint8_t> out;
  out.reserve(kSectionHeaderBytes + size);
  bytes::append_u32(out, section_tag);
  bytes::append_u32(out, flags);
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

// The launch section's 64 fixed bytes (docs/FORMAT.md, "Runs").
void encode_launch_fields(const LaunchRecord &l, uint8_t *p) {
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
}

// The coded form of a launch's buffer: its size, the lag, the code.
void append_coded(const std::vector<uint8_t> &buffer, std::vector<uint8_t> &out) {
  bytes::append_u64(out, buffer.size());
  bytes::append_u32(out, format::kDeltaLagWords);
  format::delta_encode(buffer.data(), buffer.size(), format::kDeltaLagWords, out);
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

std::optional<LaunchRecord> coded_launch_from(const uint8_t *body, uint64_t length) {
  if (length < kLaunchFixedBytes + kCodedPrefixBytes)
    return std::nullopt;
  LaunchRecord l = launch_from(body, kLaunchFixedBytes);
  const uint8_t *coded = body + kLaunchFixedBytes;
  const uint64_t size = bytes::u64(coded);
  const uint32_t lag = bytes::u32(coded + 8);
  const uint64_t code_bytes = length - kLaunchFixedBytes - kCodedPrefixBytes;
  if (lag == 0 || !format::delta_decode(coded + kCodedPrefixBytes, code_bytes, size, lag, l.buffer))
    return std::nullopt;
  return l;
}

void place(LaunchRecord &l, uint64_t offset, uint64_t length, uint32_t flags) {
  l.body_offset = offset;
  l.body_length = length;
  l.section_flags = flags;
}

// Keeps the launch's buffer when it fits the budget; otherwise only its extent.
void keep_within(LaunchRecord &l, uint64_t &kept, uint64_t budget) {
  if (l.buffer.size() <= budget && kept <= budget - l.buffer.size()) {
    kept += l.buffer.size();
    return;
  }
  std::tie(l.first_ns, l.last_ns) = buffer_extent_ns(l.buffer.data(), l.buffer.size());
  l.gaps = buffer_gaps(l.buffer.data(), l.buffer.size());
  l.buffer_dropped = true;
  std::vector<uint8_t>().swap(l.buffer);
}

// A launch section that is not kept: a problem, and what its fixed fields (when whole) say.
void skip_launch(Run &run, const std::vector<uint8_t> &body, const std::string &why) {
  run.problems.push_back(why + "; skipped");
  LostLaunch lost;
  lost.why = why;
  if (body.size() >= kLaunchFixedBytes) {
    lost.map = bytes::u32(body.data());
    lost.sequence = bytes::u64(body.data() + 56);
  }
  run.lost.push_back(std::move(lost));
}

// A launch section cut short: its fixed fields when the file still holds them.
template <class Source> LostLaunch lost_launch(Source &in, const std::string &why) {
  LostLaunch lost;
  lost.why = why;
  uint8_t fixed[kLaunchFixedBytes];
  if (in.left() >= kLaunchFixedBytes && in.read(fixed, sizeof fixed)) {
    lost.map = bytes::u32(fixed);
    lost.sequence = bytes::u64(fixed + 56);
  }
  return lost;
}

// Sections of a version 2 run. A section cut short (a program killed while writing) ends the run
// with a problem; everything before it is kept.
template <class Source>
E parse_run_sections(Source &in, uint32_t sections, const RunReadOptions &options = {}) {
  Run run;
  uint64_t kept = 0; // launch buffer bytes kept so far
  const uint64_t after_preamble = in.left();
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
    const uint32_t flags = bytes::u32(header + 4);
    const uint64_t length = bytes::u64(header + 8);
    if (length > in.left()) {
      run.problems.push_back("run truncated: section " + std::to_string(i) + " needs " +
                             std::to_string(length) + " bytes, " + std::to_string(in.left()) +
                             " left; it and anything after it are not read");
      if (section_tag == kLaunchTag)
        run.lost.push_back(lost_launch(in, "its section was cut short (the file ends " +
                                               std::to_string(length - in.left()) +
                                               " bytes early: the program was killed or "
                                               "crashed while writing it)"));
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
    const uint64_t body_offset = format::kPreambleBytes + (after_preamble - in.left());
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
      skip_launch(run, body, "launch section " + std::to_string(i) + " is too short");
    else if (flags & ~kLaunchDeltaCoded)
      skip_launch(run, body,
                  "launch section " + std::to_string(i) + " has unknown flags " +
                      std::to_string(flags));
    else if (flags & kLaunchDeltaCoded) {
      std::optional<LaunchRecord> l = coded_launch_from(body.data(), length);
      if (!l)
        skip_launch(run, body,
                    "launch section " + std::to_string(i) + ": its delta-coded buffer is damaged");
      else {
        run.launches.push_back(std::move(*l));
        place(run.launches.back(), body_offset, length, flags);
        keep_within(run.launches.back(), kept, options.max_buffer_bytes);
      }
    } else {
      run.launches.push_back(launch_from(body.data(), length));
      place(run.launches.back(), body_offset, length, flags);
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
  if (data != nullptr && size > 0 && data[0] == '{') // a decode map given for its trace
    return "not a .ctrace file (bad magic): it is JSON, such as a decode map "
           "(.trace_map.json); trace-view reads the .ctrace file the traced program wrote";
  if (data == nullptr || size < kPreambleBytes ||
      std::memcmp(data, kCtraceMagic, sizeof kCtraceMagic) != 0)
    return "not a .ctrace file (bad magic)";
  const uint32_t version = bytes::u32(data + 8);
  if (version != kCtraceVersion && version != kRunContainerVersion)
    return ".ctrace version " + std::to_string(version) + " is not supported (expected 1 or 2)";
  return std::nullopt;
}

} // namespace

std::vector<uint8_t> encode_launch_section(const LaunchRecord &l, LaunchCoding coding) {
  std::vector<uint8_t> body(kLaunchFixedBytes);
  encode_launch_fields(l, body.data());
  if (coding == LaunchCoding::delta) {
    append_coded(l.buffer, body);
    return section(kLaunchTag, body.data(), body.size(), kLaunchDeltaCoded);
  }
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
          if (!one) { // its error names the file, as this reader's own will: once is enough
            const std::string named = path + ": ";
            return E::failure(one.error.rfind(named, 0) == 0 ? one.error.substr(named.size())
                                                             : one.error);
          }
          return E{run_of_one(std::move(*one)), {}};
        }
        return parse_run_sections(in, bytes::u32(head + 12), options);
      },
      parse_run);
}

Expected<std::vector<uint8_t>> read_launch_buffer(const std::string &path,
                                                  const LaunchRecord &launch) {
  using B = Expected<std::vector<uint8_t>>;
  if (launch.body_offset == 0 || launch.body_length < kLaunchFixedBytes)
    return B::failure(path + ": the launch's place in the file is not known");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return B::failure("cannot read '" + path + "': " + std::strerror(errno));
  std::vector<uint8_t> body(launch.body_length);
  size_t got = 0;
  while (got < body.size()) {
    const ssize_t n =
        ::pread(fd, body.data() + got, body.size() - got, off_t(launch.body_offset + got));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    got += size_t(n);
  }
  ::close(fd);
  if (got != body.size())
    return B::failure("cannot read '" + path + "': it changed since it was read");
  if (launch.section_flags & kLaunchDeltaCoded) {
    std::optional<LaunchRecord> l = coded_launch_from(body.data(), body.size());
    if (!l)
      return B::failure(path + ": its delta-coded buffer is damaged");
    return B{std::move(l->buffer), {}};
  }
  return B{std::vector<uint8_t>(body.begin() + kLaunchFixedBytes, body.end()), {}};
}

// ---- RunWriter ----

Expected<RunWriter *> RunWriter::create(const std::string &path, const std::string &run_json) {
  using W = Expected<RunWriter *>;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return W::failure("cannot create '" + path + "': " + std::strerror(errno));
  auto *writer = new RunWriter(fd, path);
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
  if (fd_ >= 0)
    ::close(fd_);
}

// No user-space buffer: each section goes to the kernel whole (a crash loses at most the section
// being written, which readers drop), and a launch's records are not copied on the way.
std::optional<std::string> RunWriter::write_pieces(const void *const *data, const size_t *sizes,
                                                   int n) {
  if (fd_ < 0)
    return "'" + path_ + "' is already finished";
  constexpr int kMaxPieces = 8;
  iovec iov[kMaxPieces];
  int count = 0;
  size_t total = 0;
  for (int i = 0; i < n && count < kMaxPieces; ++i)
    if (sizes[i] != 0) {
      iov[count++] = {const_cast<void *>(data[i]), sizes[i]};
      total += sizes[i];
    }
  for (iovec *at = iov; count > 0;) {
    const ssize_t wrote = ::writev(fd_, at, count);
    if (wrote < 0 && errno == EINTR)
      continue;
    if (wrote <= 0)
      return "cannot write '" + path_ + "': " + std::strerror(wrote < 0 ? errno : EIO);
    for (size_t left = size_t(wrote); left > 0;) { // a short write: move past what went out
      const size_t step = std::min(left, at->iov_len);
      at->iov_base = static_cast<uint8_t *>(at->iov_base) + step;
      at->iov_len -= step, left -= step;
      if (at->iov_len == 0)
        ++at, --count;
    }
  }
  bytes_ += total;
  return std::nullopt;
}

std::optional<std::string> RunWriter::write(const std::vector<uint8_t> &data) {
  const void *piece = data.data();
  const size_t size = data.size();
  return write_pieces(&piece, &size, 1);
}

std::optional<std::string> RunWriter::add_device(const std::string &device_json) {
  return write(text_section(kDeviceTag, device_json));
}
std::optional<std::string> RunWriter::add_map(const std::string &map_json) {
  return write(text_section(kMapTag, map_json));
}
std::optional<std::string> RunWriter::add_launch(const LaunchRecord &launch) {
  // The section header and the launch's fixed fields, then its buffer (or its code) where it
  // lies.
  const bool coded = coding_ == LaunchCoding::delta;
  if (coded) {
    coded_.clear();
    append_coded(launch.buffer, coded_);
  }
  const std::vector<uint8_t> &body = coded ? coded_ : launch.buffer;
  uint8_t head[kSectionHeaderBytes + kLaunchFixedBytes];
  bytes::put_u32(head, kLaunchTag);
  bytes::put_u32(head + 4, coded ? kLaunchDeltaCoded : 0);
  bytes::put_u64(head + 8, kLaunchFixedBytes + body.size());
  encode_launch_fields(launch, head + kSectionHeaderBytes);
  const void *pieces[2] = {head, body.data()};
  const size_t sizes[2] = {sizeof head, body.size()};
  return write_pieces(pieces, sizes, 2);
}
std::optional<std::string> RunWriter::finish(const std::string &end_json) {
  std::optional<std::string> err = write(text_section(kEndTag, end_json));
  if (fd_ >= 0 && ::close(fd_) != 0 && !err)
    err = "cannot close '" + path_ + "': " + std::strerror(errno);
  fd_ = -1;
  return err;
}

} // namespace cutrace
