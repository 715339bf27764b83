// Recorded launches leave the device in the background (docs/guide.md, "Whole runs"): one host
// thread waits for each launch's completion event, copies its compact buffer back on a copy
// stream of its own into pinned memory, packs it into a reused buffer and frees the device
// buffer; a second thread (WriteQueue) appends the packed launches to the run file meanwhile. The
// launching threads never synchronize; device memory in flight is bounded by a budget, host
// memory by the pinned staging and kWritesInFlight + 1 packed launches.
#ifndef CUTRACE_SRC_CAPTURE_DRAIN_H
#define CUTRACE_SRC_CAPTURE_DRAIN_H

#include "device_buffer.h"
#include "row_sizing.h"
#include "run_file.h"
#include "write_queue.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace cutrace {

// One recorded launch between its launch and its write.
struct InFlight {
  DeviceBuffer buffer;
  cudaStream_t stream = nullptr;  // the launch's stream
  cudaEvent_t done = nullptr;     // recorded on `stream` after the kernel (null while open)
  LaunchRecord record;            // all but the buffer
  const KernelMap *map = nullptr; // the generated map (static storage)
};

// Device bytes held by launches not yet drained. take() is what a launch asks before it
// allocates; give() is the drain returning a freed buffer.
class InFlightBudget {
public:
  explicit InFlightBudget(uint64_t cap_bytes) : cap_(cap_bytes) {}
  // True when `bytes` fit now, or (when `wait`) once enough has drained; a single launch larger
  // than the whole cap is let through alone, so no launch waits forever.
  bool take(uint64_t bytes, bool wait, uint64_t &waits);
  void give(uint64_t bytes);
  uint64_t cap() const { return cap_; }

private:
  std::mutex mu_;
  std::condition_variable freed_;
  uint64_t cap_, held_ = 0;
};

class Drain {
public:
  // Called by the writing thread with each launch's compact record, in completion order.
  using Sink = WriteQueue::Sink;
  // Packed launches waiting for or in the write: the copy of the next one overlaps the write.
  static constexpr size_t kWritesInFlight = 2;
  // The run file the devices are described in.
  using File = std::function<RunFile &()>;
  // `sizing` learns each drained launch's fullest row.
  Drain(InFlightBudget &budget, RowSizing &sizing, File file, Sink sink);
  ~Drain();

  // Queues a closed launch (its `done` event recorded). Starts the thread at first use.
  void submit(InFlight &&launch);
  // Returns when every submitted launch is written.
  void wait_idle();
  // Reads a buffer the caller keeps (a graph's), on the drain's copy stream for its device;
  // the caller has synchronized the device.
  Expected<std::vector<uint8_t>> read_now(const DeviceBuffer &buffer);

private:
  void run();
  void drain_one(InFlight &launch);
  void describe_device(int device);
  cudaStream_t copy_stream(int device);

  InFlightBudget &budget_;
  RowSizing &sizing_;
  File file_;
  std::mutex mu_;
  std::condition_variable work_, idle_;
  std::deque<InFlight> queue_;
  bool busy_ = false, stopping_ = false;
  std::thread thread_;
  std::map<int, cudaStream_t> copy_streams_;          // drain thread (and read_now, under copy_mu_)
  PinnedStaging staging_;                             // drain thread only
  std::map<const KernelMap *, uint32_t> longest_row_; // drain thread only: copy-size guesses
  std::mutex copy_mu_;
  WriteQueue writes_; // last: destroyed (its queue written) before the copy side goes
};

} // namespace cutrace

#endif // CUTRACE_SRC_CAPTURE_DRAIN_H
