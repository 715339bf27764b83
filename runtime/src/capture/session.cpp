// Automatic mode (docs/guide.md, "Whole runs"): the launch selection decides which launches
// record; each recorded launch gets a buffer from a bounded budget, is closed by a completion
// event right after its kernel is queued, and drains to the process's run file in the background.
// Launches captured into a CUDA graph keep one buffer each, read at flush (the last replay). At
// normal exit the run file is finished, one line says what was recorded, and the formats of
// $CUTRACE_FORMAT are rendered from it by a process of its own (docs/launches.md, "At exit").
#include "session.h"
#include "clock_alignment.h"
#include "drain.h"
#include "launch_selection.h"
#include "outputs.h"
#include "row_sizing.h"
#include "run_file.h"
#include "unrecorded.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>
#include <utility>

#include <unistd.h>

namespace cutrace {

namespace {

bool env_is(const char *name, const char *value) {
  const char *v = std::getenv(name);
  return v != nullptr && std::strcmp(v, value) == 0;
}

// A launch captured into a CUDA graph: its buffer lives as long as the process, since every
// replay of the graph writes it again.
struct GraphLaunch {
  InFlight launch;
  size_t written_hash = 0; // of the contents last written; 0 = never written
};

struct KernelCount {
  uint64_t launches = 0, recorded = 0;
  bool selected = true; // CUTRACE_KERNELS, decided once per kernel name
};

class Session {
public:
  Session()
      : budget_(megabytes_from_env("CUTRACE_POOL_MB", 1024)),
        sizing_(megabytes_from_env("CUTRACE_LAUNCH_MB", 64, /*zero_ok=*/true), budget_.cap(),
                whole_ctas_from_env()),
        drain_(
            budget_, sizing_, [this]() -> RunFile & { return file(); },
            [this](LaunchRecord &r, const KernelMap &map) { write(r, map); }) {
    enabled_ = !env_is("CUTRACE", "0");
    const char *dir = std::getenv("CUTRACE_OUTPUT");
    dir_ = (dir != nullptr && *dir != '\0') ? dir : "debug/";
    mapped_ = env_is("CUTRACE_MAPPED", "1");
    per_launch_ = env_is("CUTRACE_PER_LAUNCH", "1");
    skip_when_full_ = env_is("CUTRACE_POOL_FULL", "skip");
    render_at_exit_ = render_at_exit_from_env();
    coding_ = launch_coding_from_env();
    max_disk_bytes_ = megabytes_from_env("CUTRACE_MAX_MB", 4096);
    std::string note;
    set_selection(launch_selection_from_env(&note));
    if (!note.empty())
      std::fprintf(stderr, "cutrace: %s\n", note.c_str());
  }

  // The launch selection; a bad one turns recording off (said once), never a guess.
  void set_selection(Expected<LaunchSelection> selection) {
    if (!selection) {
      std::fprintf(stderr, "cutrace: %s; no launch is recorded\n", selection.error.c_str());
      selection_valid_ = false;
      return;
    }
    selection_ = std::move(*selection);
    selection_valid_ = true;
    for (auto &[name, count] : counts_)
      count.selected = selection_.selects_kernel(name);
  }

  detail::Admission admit(const KernelMap &map) {
    if (!enabled_.load(std::memory_order_relaxed))
      return {};
    std::lock_guard<std::mutex> lock(mu_);
    if (!enabled_)
      return {};
    KernelCount &count = count_of(map);
    const uint64_t index = count.launches++;
    const bool record = selection_valid_ && count.selected && selection_.selects_index(index);
    if (!record)
      ++skipped_by_selection_;
    return {record, uint32_t(std::min<uint64_t>(index, UINT32_MAX))};
  }

  Slots *record(const KernelMap &map, dim3 grid, dim3 block, cudaStream_t stream, uint32_t index) {
    close_open_launch_of_this_thread(); // before waiting: a launch waits only on others
    if (capturing(stream))
      return record_in_graph(map, grid, block, stream, index);
    if (file().bytes_written() >= max_disk_bytes_) {
      ++disk_skipped_;
      return nullptr;
    }
    // Once per kernel at most: its first launch drains before this one is sized from it.
    if (sizing_.await_first(map, kFirstDrainWait))
      ++sizing_waits_;
    const RowLayout rows = row_plan(map, grid, block);
    const uint64_t bytes = DeviceBuffer::bytes_for(map, grid, block, rows.capacity, rows.cta_stride);
    if (!budget_.take(bytes, !skip_when_full_, pool_waits_)) {
      ++pool_skipped_;
      return nullptr;
    }
    std::lock_guard<std::mutex> lock(mu_);
    std::optional<InFlight> launch =
        start(map, grid, block, stream, index,
              mapped_ ? DeviceBuffer::Memory::mapped : DeviceBuffer::Memory::pooled, rows);
    if (!launch) {
      budget_.give(bytes);
      return nullptr;
    }
    Slots *slots = launch->buffer.slots();
    // Counted from now, not from its close: another thread's launch of the kernel queued before
    // this one is closed waits for it too.
    sizing_.queued(map);
    open_.erase(std::this_thread::get_id()); // none: this thread closed its own above
    open_.emplace(std::this_thread::get_id(), std::move(*launch));
    return slots;
  }

  // The kernel of `slots` is queued: its completion event goes right behind it.
  void launched(Slots *slots) { close_open_launch_of_this_thread(slots); }

  void flush() {
    std::unique_lock<std::mutex> lock(mu_);
    std::vector<InFlight> open;
    for (auto &[thread, launch] : open_)
      open.push_back(std::move(launch));
    open_.clear();
    lock.unlock();
    for (InFlight &launch : open)
      close(std::move(launch));
    drain_.wait_idle();
    write_graph_launches();
  }

  // At normal exit (and at most once): the run file's END, the exit line, the rendered formats.
  void finish() {
    // A forked child (a DataLoader worker that exits normally) inherits the session: the run
    // file, its queue and its exit hook are its parent's, which finishes them.
    if (::getpid() != owner_)
      return;
    flush();
    std::lock_guard<std::mutex> lock(mu_);
    if (finished_)
      return;
    finished_ = true;
    const std::string path = run_ != nullptr ? run_->finish(end_json()) : std::string();
    if (run_ != nullptr)
      print_exit_line(path);
    for (const std::string &line : detail::unrecorded_lines())
      std::fprintf(stderr, "%s\n", line.c_str());
    if (!path.empty())
      detail::write_run_outputs(path, default_output_formats(), !render_at_exit_);
  }

  void enable(const char *dir, std::optional<Expected<LaunchSelection>> selection) {
    std::lock_guard<std::mutex> lock(mu_);
    enabled_ = true;
    if (dir != nullptr && run_ == nullptr)
      dir_ = dir;
    else if (dir != nullptr && dir_ != dir)
      std::fprintf(stderr, "cutrace: enable(\"%s\"): this run already writes into %s\n", dir,
                   dir_.c_str());
    if (selection)
      set_selection(std::move(*selection));
  }

  void report_at_exit() {
    std::lock_guard<std::mutex> lock(mu_);
    register_exit_hook();
  }

  void disable() {
    std::lock_guard<std::mutex> lock(mu_);
    enabled_ = false;
  }

private:
  KernelCount &count_of(const KernelMap &map) {
    if (const auto it = by_map_.find(&map); it != by_map_.end())
      return *it->second;
    auto [it, inserted] = counts_.try_emplace(map.kernel);
    if (inserted)
      it->second.selected = selection_.selects_kernel(map.kernel);
    by_map_.emplace(&map, &it->second);
    return it->second;
  }

  // The launch's rows (docs/guide.md, "Row capacity"); a graph's launch takes no share of the
  // launch budget.
  RowLayout row_plan(const KernelMap &map, dim3 grid, dim3 block, bool in_graph = false) const {
    return sizing_.plan(map, uint64_t(grid.x) * grid.y * grid.z,
                        rows_per_cta(map, block.x * block.y * block.z), !in_graph);
  }

  // The value of the environment variable `name`: `other`'s when it names it, else `fallback`'s
  // (unset or empty too; another name is said on stderr).
  template <class T>
  static T choice_from_env(const char *name, std::pair<const char *, T> fallback,
                           std::pair<const char *, T> other) {
    const char *v = std::getenv(name);
    if (v == nullptr || *v == '\0' || std::strcmp(v, fallback.first) == 0)
      return fallback.second;
    if (std::strcmp(v, other.first) == 0)
      return other.second;
    std::fprintf(stderr, "cutrace: %s=\"%s\" is not %s or %s; using %s\n", name, v,
                 fallback.first, other.first, fallback.first);
    return fallback.second;
  }

  // CUTRACE_RENDER: `exit` renders before the program exits, `background` (the default) in a
  // process that outlives it (docs/launches.md, "At exit").
  static bool render_at_exit_from_env() {
    return choice_from_env<bool>("CUTRACE_RENDER", {"background", false}, {"exit", true});
  }

  // CUTRACE_ROW_RULE: what a launch whose rows the pool cannot hold records (docs/guide.md,
  // "Row capacity"): `ctas` (the default) 1 CTA in k, each whole; `first` every CTA, each row
  // its first records.
  static bool whole_ctas_from_env() {
    return choice_from_env<bool>("CUTRACE_ROW_RULE", {"ctas", true}, {"first", false});
  }

  // CUTRACE_COMPRESS: `delta` stores launch buffers delta-coded (docs/FORMAT.md, "Runs").
  static LaunchCoding launch_coding_from_env() {
    return choice_from_env<LaunchCoding>("CUTRACE_COMPRESS", {"none", LaunchCoding::plain},
                           {"delta", LaunchCoding::delta});
  }

  static bool capturing(cudaStream_t stream) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream, &status) != cudaSuccess) {
      (void)cudaGetLastError(); // e.g. the legacy stream while another stream captures
      return false;
    }
    return status == cudaStreamCaptureStatusActive;
  }

  RunFile &file() {
    std::lock_guard<std::mutex> lock(file_mu_);
    if (run_ == nullptr)
      run_ = std::make_unique<RunFile>(dir_, selection_.launches_text, selection_.kernels_text,
                                       coding_);
    return *run_;
  }

  // Allocates and zeroes the buffer (queued on `stream`) and fills the launch's record; under mu_.
  std::optional<InFlight> start(const KernelMap &map, dim3 grid, dim3 block, cudaStream_t stream,
                                uint32_t index, DeviceBuffer::Memory memory, RowLayout rows) {
    Expected<DeviceBuffer> buf =
        DeviceBuffer::allocate(map, grid, block, stream, memory, rows.capacity, rows.cta_stride);
    if (!buf) {
      std::fprintf(stderr, "cutrace: %s: %s; this launch is not traced\n", map.kernel,
                   buf.error.c_str());
      return std::nullopt;
    }
    std::optional<uint32_t> map_index = file().map_index(map);
    if (!map_index)
      return std::nullopt;
    register_exit_hook(); // after the first CUDA call, so it runs before the runtime's teardown
    InFlight f{std::move(*buf), stream, nullptr, {}, &map};
    LaunchRecord &r = f.record;
    r.map = *map_index;
    r.device = uint32_t(f.buffer.device());
    devices_used_.insert(f.buffer.device());
    r.stream = uint64_t(reinterpret_cast<uintptr_t>(stream));
    r.launch_index = index;
    r.grid[0] = grid.x, r.grid[1] = grid.y, r.grid[2] = grid.z;
    r.block[0] = block.x, r.block[1] = block.y, r.block[2] = block.z;
    r.host_enqueue_ns = host_now_ns();
    r.sequence = sequence_++;
    ++count_of(map).recorded;
    return f;
  }

  Slots *record_in_graph(const KernelMap &map, dim3 grid, dim3 block, cudaStream_t stream,
                         uint32_t index) {
    // The capture's own mode would forbid the allocation; the zeroing becomes a graph node, so
    // every replay starts from a zeroed buffer.
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    cudaThreadExchangeStreamCaptureMode(&mode);
    std::lock_guard<std::mutex> lock(mu_);
    std::optional<InFlight> launch =
        start(map, grid, block, stream, index, DeviceBuffer::Memory::persistent,
              row_plan(map, grid, block, /*in_graph=*/true));
    cudaThreadExchangeStreamCaptureMode(&mode);
    if (!launch)
      return nullptr;
    launch->record.flags |= kLaunchInGraph;
    Slots *slots = launch->buffer.slots();
    graphs_.push_back({std::move(*launch), 0});
    return slots;
  }

  // Closes this thread's open launch (only the one of `slots`, when given).
  void close_open_launch_of_this_thread(Slots *slots = nullptr) {
    std::unique_lock<std::mutex> lock(mu_);
    const auto it = open_.find(std::this_thread::get_id());
    if (it == open_.end() || (slots != nullptr && it->second.buffer.slots() != slots))
      return;
    InFlight launch = std::move(it->second);
    open_.erase(it);
    lock.unlock();
    close(std::move(launch));
  }

  void close(InFlight &&launch) {
    cudaEvent_t done = nullptr;
    if (cudaEventCreateWithFlags(&done, cudaEventDisableTiming | cudaEventBlockingSync) !=
            cudaSuccess ||
        cudaEventRecord(done, launch.stream) != cudaSuccess) {
      // The stream is gone or broken: the device is synchronized instead, in the drain.
      (void)cudaGetLastError();
      if (done != nullptr)
        cudaEventDestroy(done);
      done = nullptr;
    }
    launch.done = done;
    drain_.submit(std::move(launch));
  }

  // Runs in the drain's writing thread (and at flush, for graph launches).
  void write(const LaunchRecord &record, const KernelMap &map) {
    if (record.buffer.empty())
      return;
    if (per_launch_) // the single-launch files of earlier versions, when asked for
      detail::write_launch_outputs(dir_, map.kernel, single_launch(record, map),
                                   default_output_formats());
    file().add_launch(record);
  }

  static Ctrace single_launch(const LaunchRecord &record, const KernelMap &map) {
    Ctrace raw;
    raw.map_json = map.json ? map.json : "";
    std::copy(record.grid, record.grid + 3, raw.grid);
    std::copy(record.block, record.block + 3, raw.block);
    raw.launch_index = record.launch_index;
    raw.buffer = record.buffer;
    return raw;
  }

  void write_graph_launches() {
    std::lock_guard<std::mutex> lock(mu_);
    if (graphs_.empty())
      return;
    std::set<int> devices;
    for (const GraphLaunch &g : graphs_)
      devices.insert(g.launch.buffer.device());
    int current = 0; // the caller's device is theirs: put it back afterwards
    cudaGetDevice(&current);
    for (int d : devices) {
      cudaSetDevice(d);
      (void)cudaDeviceSynchronize();
    }
    for (GraphLaunch &g : graphs_) {
      Expected<std::vector<uint8_t>> bytes = drain_.read_now(g.launch.buffer);
      if (!bytes)
        continue;
      const size_t hash = std::hash<std::string_view>()(
          std::string_view(reinterpret_cast<const char *>(bytes->data()), bytes->size()));
      const bool replayed = buffer_extent_ns(bytes->data(), bytes->size()).first != 0;
      if (hash == g.written_hash || !replayed)
        continue; // not replayed since the last write, or never replayed
      g.written_hash = hash;
      LaunchRecord r = g.launch.record;
      r.buffer = std::move(*bytes);
      write(r, *g.launch.map);
    }
    cudaSetDevice(current);
    (void)cudaGetLastError();
  }

  // The clock offsets again at the end, so the decoder can state how far host alignment may have
  // drifted over the run. The calling thread's device is restored.
  nlohmann::json end_alignments() {
    nlohmann::json devices = nlohmann::json::array();
    int current = 0;
    cudaGetDevice(&current);
    for (int d : devices_used_) {
      cudaSetDevice(d);
      const ClockAlignment a = measure_clock_alignment();
      if (a.aligned)
        devices.push_back({{"index", d},
                           {"host_minus_gpu_ns", a.host_minus_gpu_ns},
                           {"alignment_error_ns", a.error_ns}});
    }
    cudaSetDevice(current);
    return devices;
  }

  std::string end_json() {
    nlohmann::json kernels = nlohmann::json::array();
    for (const auto &[name, c] : counts_)
      kernels.push_back({{"kernel", name}, {"launches", c.launches}, {"recorded", c.recorded}});
    return nlohmann::json{{"kernels", kernels},
                          {"pool_waits", pool_waits_},
                          {"pool_skipped", pool_skipped_.load()},
                          {"disk_skipped", disk_skipped_.load()},
                          {"sizing_waits", sizing_waits_.load()},
                          {"graph_launches", graphs_.size()},
                          {"devices_at_end", end_alignments()},
                          {"end_unix_ns", host_now_ns()}}
        .dump();
  }

  void print_exit_line(const std::string &path) {
    uint64_t launches = 0, recorded = 0;
    for (const auto &[name, c] : counts_)
      launches += c.launches, recorded += c.recorded;
    std::string skipped = std::to_string(skipped_by_selection_) + " by the selection";
    if (pool_skipped_)
      skipped += ", " + std::to_string(pool_skipped_.load()) + " with the buffer pool full";
    if (disk_skipped_)
      skipped += ", " + std::to_string(disk_skipped_.load()) + " past CUTRACE_MAX_MB";
    std::fprintf(
        stderr,
        "cutrace: recorded %llu of %llu launches of %zu kernels (launches %s) into %s "
        "(%.1f MB); not recorded: %s%s\n",
        (unsigned long long)recorded, (unsigned long long)launches, counts_.size(),
        selection_.launches_text.c_str(), path.c_str(), double(run_->bytes_written()) / 1e6,
        skipped.c_str(), waits_text().c_str());
  }

  // What launches waited for, if any: the buffer pool, their kernel's first launch to drain.
  std::string waits_text() const {
    std::string out;
    if (pool_waits_)
      out += ", " + std::to_string(pool_waits_) +
             (pool_waits_ == 1 ? " launch" : " launches") + " waited for the buffer pool";
    if (const uint64_t n = sizing_waits_.load())
      out += ", " + std::to_string(n) + (n == 1 ? " launch" : " launches") +
             (n == 1 ? " waited for its kernel's" : " waited for their kernel's") +
             " first launch to drain (rows sized from it)";
    return out;
  }

  void register_exit_hook() {
    if (exit_hook_registered_)
      return;
    std::atexit([] {
      try {
        cutrace_session_finish();
      } catch (const std::exception &e) { // never out of an exit handler
        std::fprintf(stderr, "cutrace: writing traces at exit failed: %s\n", e.what());
      }
    });
    exit_hook_registered_ = true;
  }
  static void cutrace_session_finish();

  std::mutex mu_;
  std::atomic<bool> enabled_{true}; // written under mu_; admit() reads it without
  LaunchSelection selection_;
  bool selection_valid_ = false;
  std::string dir_;
  bool mapped_ = false, per_launch_ = false, skip_when_full_ = false, render_at_exit_ = false;
  bool exit_hook_registered_ = false, finished_ = false;
  const pid_t owner_ = ::getpid(); // the process that made the session
  uint64_t max_disk_bytes_ = 0;
  LaunchCoding coding_ = LaunchCoding::plain;
  std::map<std::string, KernelCount, std::less<>> counts_;
  std::unordered_map<const KernelMap *, KernelCount *> by_map_;
  uint64_t skipped_by_selection_ = 0, sequence_ = 0, pool_waits_ = 0;
  std::atomic<uint64_t> pool_skipped_{0}, disk_skipped_{0};
  // Launches that waited for their kernel's first launch to drain (RowSizing::await_first).
  std::atomic<uint64_t> sizing_waits_{0};
  // The longest such a wait lasts: beyond it, a launch is sized as the kernel's first was.
  static constexpr std::chrono::milliseconds kFirstDrainWait{10000};
  std::map<std::thread::id, InFlight> open_;
  std::vector<GraphLaunch> graphs_;
  std::set<int> devices_used_;
  std::mutex file_mu_;
  std::unique_ptr<RunFile> run_;
  InFlightBudget budget_;
  RowSizing sizing_;
  Drain drain_;
};

// Never destroyed: the exit hook may run after static destructors of other translation units.
Session &session() {
  static Session *s = new Session();
  return *s;
}

void Session::cutrace_session_finish() { session().finish(); }

} // namespace

Slots *launch(const KernelMap &map, dim3 grid, dim3 block, cudaStream_t stream) {
  const detail::Admission a = session().admit(map);
  return a.record ? session().record(map, grid, block, stream, a.index) : nullptr;
}
void enable(const char *dir) { session().enable(dir, std::nullopt); }
std::optional<std::string> enable(const char *dir, const char *launches, const char *kernels) {
  Expected<LaunchSelection> s =
      parse_launch_selection(launches ? launches : kDefaultLaunches, kernels ? kernels : "");
  std::optional<std::string> error;
  if (!s)
    error = s.error;
  session().enable(dir, std::move(s));
  return error;
}
void disable() { session().disable(); }
void flush() { session().flush(); }

namespace detail {
Admission admit(const KernelMap &map) { return session().admit(map); }
Slots *record_launch(const KernelMap &map, dim3 grid, dim3 block, cudaStream_t stream,
                     uint32_t index) {
  return session().record(map, grid, block, stream, index);
}
void report_at_exit() { session().report_at_exit(); }
void launched(Slots *slots) {
  if (slots != nullptr)
    session().launched(slots);
}
} // namespace detail

} // namespace cutrace
