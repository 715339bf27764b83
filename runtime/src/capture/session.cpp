// Automatic mode: launch() registers one buffer per launch; flush() (or normal exit) copies
// them back and hands each to detail::write_launch_outputs. One process-wide session behind a
// mutex.
#include "session.h"
#include "device_buffer.h"
#include "outputs.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <set>

namespace cutrace {

namespace {

struct PendingLaunch {
  std::string kernel;
  std::string map_json;
  uint32_t launch_index;
  DeviceBuffer buffer;
};

uint32_t max_launches_from_env() {
  const char *v = std::getenv("CUTRACE_MAX_LAUNCHES");
  if (v == nullptr || *v == '\0')
    return 64;
  char *end = nullptr;
  const unsigned long n = std::strtoul(v, &end, 10);
  return (*end == '\0' && n <= UINT32_MAX) ? uint32_t(n) : 64;
}

class Session {
public:
  Session() {
    const char *on = std::getenv("CUTRACE");
    enabled_ = !(on != nullptr && std::strcmp(on, "0") == 0);
    const char *dir = std::getenv("CUTRACE_OUTPUT");
    dir_ = (dir != nullptr && *dir != '\0') ? dir : "debug/";
    max_launches_ = max_launches_from_env();
    const char *mapped = std::getenv("CUTRACE_MAPPED");
    mapped_ = mapped != nullptr && std::strcmp(mapped, "1") == 0;
  }

  Slots *launch(const KernelMap &map, dim3 grid, dim3 block, cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!enabled_)
      return nullptr;
    uint32_t &count = launches_[map.kernel];
    if (count >= max_launches_) {
      ++skipped_[map.kernel];
      return nullptr;
    }
    Expected<DeviceBuffer> buf = DeviceBuffer::allocate(map, grid, block, stream, mapped_);
    if (!buf) {
      std::fprintf(stderr, "cutrace: %s: %s; this launch is not traced\n", map.kernel,
                   buf.error.c_str());
      return nullptr;
    }
    // Registered after the first CUDA call, so it runs before the CUDA runtime's own teardown.
    if (!exit_hook_registered_) {
      std::atexit([] {
        try {
          cutrace::flush();
        } catch (const std::exception &e) { // never out of an exit handler
          std::fprintf(stderr, "cutrace: writing traces at exit failed: %s\n", e.what());
        }
      });
      exit_hook_registered_ = true;
    }
    Slots *slots = buf->slots();
    pending_.push_back({map.kernel, map.json ? map.json : "", count++, std::move(*buf)});
    return slots;
  }

  // Whether launch() would give this launch a buffer now; a launch over the limit is counted here,
  // as launch() counts it. Disabled tracing answers without the lock; nothing is allocated.
  bool admits(const KernelMap &map) {
    if (!enabled_.load(std::memory_order_relaxed))
      return false;
    std::lock_guard<std::mutex> lock(mu_);
    if (!enabled_)
      return false;
    const auto it = launches_.find(map.kernel);
    if (it == launches_.end() || it->second < max_launches_)
      return true;
    ++skipped_[map.kernel];
    return false;
  }

  void flush() {
    std::lock_guard<std::mutex> lock(mu_);
    synchronize_devices();
    const OutputFormats formats = default_output_formats();
    // Runs from the exit hook too, where an exception would abort the program and lose every
    // launch after it: each launch's failure is reported and the next one is still written.
    for (PendingLaunch &p : pending_) {
      try {
        write_launch(p, formats);
      } catch (const std::exception &e) {
        std::fprintf(stderr, "cutrace: %s launch %u: %s; not written\n", p.kernel.c_str(),
                     p.launch_index, e.what());
      }
    }
    pending_.clear(); // frees the device buffers
    for (const auto &[kernel, n] : skipped_)
      std::fprintf(stderr,
                   "cutrace: %s: %u launches not traced (CUTRACE_MAX_LAUNCHES=%u per kernel)\n",
                   kernel.c_str(), n, max_launches_);
    skipped_.clear();
  }

  void enable(const char *dir) {
    std::lock_guard<std::mutex> lock(mu_);
    enabled_ = true;
    if (dir != nullptr)
      dir_ = dir;
  }

  void disable() {
    std::lock_guard<std::mutex> lock(mu_);
    enabled_ = false;
  }

private:
  void synchronize_devices() {
    std::set<int> devices;
    for (const PendingLaunch &p : pending_)
      devices.insert(p.buffer.device());
    if (devices.empty())
      return;
    int current = 0;
    cudaGetDevice(&current);
    for (int d : devices) {
      cudaSetDevice(d);
      if (cudaError_t err = cudaDeviceSynchronize(); err != cudaSuccess)
        std::fprintf(stderr, "cutrace: %s\n", cuda_error("cudaDeviceSynchronize", err).c_str());
    }
    cudaSetDevice(current);
  }

  void write_launch(const PendingLaunch &p, const OutputFormats &formats) {
    Expected<std::vector<uint8_t>> bytes = p.buffer.read_back();
    if (!bytes) {
      std::fprintf(stderr, "cutrace: %s launch %u: %s; nothing written\n", p.kernel.c_str(),
                   p.launch_index, bytes.error.c_str());
      return;
    }
    Ctrace raw;
    raw.map_json = p.map_json;
    for (int i = 0; i < 3; ++i) {
      raw.grid[i] = p.buffer.header().grid[i];
      raw.block[i] = p.buffer.header().block[i];
    }
    raw.launch_index = p.launch_index;
    raw.buffer = std::move(*bytes);
    detail::write_launch_outputs(dir_, p.kernel, raw, formats);
  }

  std::mutex mu_;
  std::atomic<bool> enabled_{true}; // written under mu_; admits() reads it without

  bool exit_hook_registered_ = false;
  bool mapped_ = false; // CUTRACE_MAPPED=1: buffers in mapped host memory (survive a trap)
  std::string dir_;
  uint32_t max_launches_ = 64;
  std::map<std::string, uint32_t, std::less<>> launches_; // recorded launches per kernel
  std::map<std::string, uint32_t> skipped_; // launches over the limit since the last flush
  std::vector<PendingLaunch> pending_;
};

// Never destroyed: the exit hook may run after static destructors of other translation units.
Session &session() {
  static Session *s = new Session();
  return *s;
}

} // namespace

Slots *launch(const KernelMap &map, dim3 grid, dim3 block, cudaStream_t stream) {
  return session().launch(map, grid, block, stream);
}
void enable(const char *dir) { session().enable(dir); }
bool detail::admits(const KernelMap &map) { return session().admits(map); }
void disable() { session().disable(); }
void flush() { session().flush(); }

} // namespace cutrace
