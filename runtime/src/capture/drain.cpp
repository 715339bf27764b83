#include "drain.h"
#include "clock_alignment.h"
#include "marker_calibration.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace cutrace {

bool InFlightBudget::take(uint64_t bytes, bool wait, uint64_t &waits) {
  std::unique_lock<std::mutex> lock(mu_);
  auto fits = [&] { return held_ == 0 || held_ + bytes <= cap_; };
  if (!fits()) {
    if (!wait)
      return false;
    ++waits;
    freed_.wait(lock, fits);
  }
  held_ += bytes;
  return true;
}

void InFlightBudget::give(uint64_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    held_ -= std::min(held_, bytes);
  }
  freed_.notify_all();
}

Drain::Drain(InFlightBudget &budget, RowSizing &sizing, File file, Sink sink)
    : budget_(budget), sizing_(sizing), file_(file), writes_(kWritesInFlight, std::move(sink)) {}

Drain::~Drain() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  work_.notify_all();
  if (thread_.joinable())
    thread_.join();
}

void Drain::submit(InFlight &&launch) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(launch));
    if (!thread_.joinable())
      thread_ = std::thread([this] { run(); });
  }
  work_.notify_one();
}

void Drain::wait_idle() {
  {
    std::unique_lock<std::mutex> lock(mu_);
    idle_.wait(lock, [&] { return queue_.empty() && !busy_; });
  }
  writes_.wait_idle(); // the copies are done: nothing more is pushed
}

void Drain::run() {
  // Another thread's stream capture (global mode) must not make this thread's copies illegal,
  // nor these copies break the capture.
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  cudaThreadExchangeStreamCaptureMode(&mode);
  staging_.reserve(size_t(16) << 20); // pinned memory is slow to get: once, up front
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    work_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty())
      return; // stopping, and nothing left
    InFlight launch = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    drain_one(launch);
    lock.lock();
    busy_ = false;
    if (queue_.empty())
      idle_.notify_all();
  }
}

cudaStream_t Drain::copy_stream(int device) {
  std::lock_guard<std::mutex> lock(copy_mu_);
  cudaStream_t &s = copy_streams_[device];
  if (s == nullptr && cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess)
    s = nullptr; // the legacy stream then: slower, still correct
  return s;
}

namespace {

// Bytes as lowercase hex, two digits each (the marker probe's buffer in a DEV section).
std::string hex_bytes(const std::vector<uint8_t> &bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (uint8_t b : bytes)
    out += kDigits[b >> 4], out += kDigits[b & 15];
  return out;
}

} // namespace

// The DEV section: what the decoder needs of the GPU, and its clock offset to the host.
void Drain::describe_device(int device) {
  RunFile &file = file_();
  if (file.has_device(device))
    return;
  cudaDeviceProp prop{};
  (void)cudaGetDeviceProperties(&prop, device);
  int khz = 0;
  (void)cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device);
  const ClockAlignment a = measure_clock_alignment();
  nlohmann::json d = {{"index", device},
                      {"name", std::string(prop.name)},
                      {"clock_khz", khz},
                      {"sms", prop.multiProcessorCount},
                      {"aligned", a.aligned},
                      {"host_minus_gpu_ns", a.host_minus_gpu_ns},
                      {"alignment_error_ns", a.error_ns}};
  if (!a.aligned) {
    d["alignment_problem"] = a.why_not;
    std::fprintf(stderr, "cutrace: GPU %d: host and GPU clocks not aligned: %s\n", device,
                 a.why_not.c_str());
  }
  // The marker probe's buffer, for the decoder to take the markers' own cost out of ranges.
  Expected<std::vector<uint8_t>> probe = record_marker_probe();
  if (probe)
    d["marker_probe"] = hex_bytes(*probe);
  else
    d["marker_probe_problem"] = probe.error;
  (void)cudaGetLastError();
  file.add_device(device, d.dump());
}

void Drain::drain_one(InFlight &launch) {
  const int device = launch.buffer.device();
  cudaSetDevice(device);
  describe_device(device);
  const uint64_t held = launch.buffer.bytes();
  std::vector<uint8_t> packed = writes_.spare_buffer();
  std::optional<std::string> error;
  uint32_t fullest = 0;
  if (launch.done == nullptr) // the stream broke at close: the device is synchronized instead
    error = cudaDeviceSynchronize() == cudaSuccess
                ? std::nullopt
                : std::optional<std::string>("the launch's stream failed");
  else if (cudaError_t err = cudaEventSynchronize(launch.done); err != cudaSuccess)
    error = cuda_error("waiting for the launch", err);
  if (!error)
    error = launch.buffer.read_back_compact_into(copy_stream(device), packed, &staging_,
                                                 &longest_row_[launch.map], &fullest);
  // A launch that failed says nothing of what its rows need.
  sizing_.drained(*launch.map, error ? std::nullopt : std::optional<uint32_t>(fullest));
  if (launch.done != nullptr)
    cudaEventDestroy(launch.done);
  launch.buffer.release(copy_stream(device));
  budget_.give(held);
  if (error) {
    std::fprintf(stderr, "cutrace: %s launch %u: %s; not recorded\n", launch.map->kernel,
                 launch.record.launch_index, error->c_str());
    (void)cudaGetLastError();
    return;
  }
  launch.record.buffer = std::move(packed);
  writes_.push(std::move(launch.record), *launch.map);
}

Expected<std::vector<uint8_t>> Drain::read_now(const DeviceBuffer &buffer) {
  cudaSetDevice(buffer.device());
  describe_device(buffer.device());
  return buffer.read_back_compact(copy_stream(buffer.device()));
}

} // namespace cutrace
