// The drain's second stage (docs/guide.md, "Whole runs"): packed launches wait here for a thread
// of their own that appends them to the run file, in the order they were handed over, while the
// drain thread copies the next launch back. At most `depth` launches are queued or being written,
// and their buffers are recycled, so the host memory of packed launches is bounded by
// (depth + 1) x the largest launch's compact size. Needs no CUDA.
#ifndef CUTRACE_SRC_CAPTURE_WRITE_QUEUE_H
#define CUTRACE_SRC_CAPTURE_WRITE_QUEUE_H

#include <cutrace/map.h>
#include <cutrace/run.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace cutrace {

class WriteQueue {
public:
  // Called on the writing thread with each launch, in push order; the buffer it leaves in the
  // record is reused for a later launch.
  using Sink = std::function<void(LaunchRecord &, const KernelMap &)>;
  WriteQueue(size_t depth, Sink sink);
  ~WriteQueue(); // writes everything pushed, then stops
  WriteQueue(const WriteQueue &) = delete;
  WriteQueue &operator=(const WriteQueue &) = delete;

  // An empty vector whose memory a written launch left behind (or a new one): pack into it.
  std::vector<uint8_t> spare_buffer();
  // Queues a launch; blocks while `depth` launches are queued or being written.
  void push(LaunchRecord &&launch, const KernelMap &map);
  // Returns when every pushed launch has gone through the sink.
  void wait_idle();
  // Launches queued or being written right now, and the most ever (never above depth).
  size_t held();
  size_t most_held();

private:
  struct Item {
    LaunchRecord launch;
    const KernelMap *map;
  };
  void run();

  const size_t depth_;
  Sink sink_;
  std::mutex mu_;
  std::condition_variable work_, room_, idle_;
  std::deque<Item> queue_;
  std::vector<std::vector<uint8_t>> spares_;
  size_t writing_ = 0, most_held_ = 0;
  bool stopping_ = false;
  std::thread thread_;
};

} // namespace cutrace

#endif // CUTRACE_SRC_CAPTURE_WRITE_QUEUE_H
