// The drain's write stage (runtime/src/capture/write_queue.h, docs/guide.md "Whole runs"): packed
// launches reach the run file in the order the drain handed them over, never more than the
// queue's depth wait at once (host memory stays bounded however slow the disk), buffers are
// reused, and nothing handed over is lost when the program flushes or the queue goes away.
// Pure C++: no GPU, no CUDA calls, no timing.
#include "capture/write_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace cutrace {
namespace {

const KernelMap kMap{"k", 1, 16, Clock::clock64, "{}"};

LaunchRecord launch(uint64_t sequence, size_t bytes) {
  LaunchRecord r;
  r.sequence = sequence;
  r.buffer.assign(bytes, uint8_t(sequence));
  return r;
}

// A sink that holds each write until the test lets it go: the disk at its slowest.
class GatedSink {
public:
  void operator()(LaunchRecord &r, const KernelMap &) {
    std::unique_lock<std::mutex> lock(mu_);
    opened_.wait(lock, [&] { return allowed_ > written_.size(); });
    written_.push_back(r.sequence);
    sizes_.push_back(r.buffer.size());
  }
  void allow(size_t n) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      allowed_ += n;
    }
    opened_.notify_all();
  }
  std::vector<uint64_t> written() {
    std::lock_guard<std::mutex> lock(mu_);
    return written_;
  }

private:
  std::mutex mu_;
  std::condition_variable opened_;
  size_t allowed_ = 0;
  std::vector<uint64_t> written_, sizes_;
};

TEST(WriteQueue, LaunchesAreWrittenInTheOrderTheyWereHandedOver) {
  std::vector<uint64_t> written;
  {
    WriteQueue q(2, [&](LaunchRecord &r, const KernelMap &) { written.push_back(r.sequence); });
    for (uint64_t i = 0; i < 500; ++i)
      q.push(launch(i, 1 + i % 7), kMap);
    q.wait_idle();
  }
  ASSERT_EQ(written.size(), 500u);
  for (uint64_t i = 0; i < written.size(); ++i)
    EXPECT_EQ(written[i], i);
}

// The sink opens for one write only when the queue is full (or the producer is done): a queue
// that did not make the producer wait would pass two launches with the sink still closed.
TEST(WriteQueue, NoMoreThanDepthLaunchesAreHeldWhateverTheSinksSpeed) {
  GatedSink sink;
  WriteQueue q(2, [&](LaunchRecord &r, const KernelMap &m) { sink(r, m); });
  std::atomic<bool> done{false};
  std::thread producer([&] {
    for (uint64_t i = 0; i < 100; ++i) {
      q.push(launch(i, 64), kMap);
      EXPECT_LE(q.held(), 2u); // at every hand-over, not sampled in time
    }
    done = true;
  });
  for (size_t allowed = 0; !done;) {
    if (q.held() == 2 && sink.written().size() == allowed)
      sink.allow(1), ++allowed;
    std::this_thread::yield();
  }
  producer.join();
  sink.allow(100);
  q.wait_idle();
  EXPECT_EQ(sink.written().size(), 100u);
  EXPECT_EQ(q.most_held(), 2u);
}

TEST(WriteQueue, WrittenBuffersComeBackForTheNextLaunch) {
  WriteQueue q(2, [](LaunchRecord &, const KernelMap &) {});
  q.push(launch(0, 4096), kMap);
  q.wait_idle();
  std::vector<uint8_t> spare = q.spare_buffer();
  EXPECT_TRUE(spare.empty());
  EXPECT_GE(spare.capacity(), 4096u);
  EXPECT_EQ(q.spare_buffer().capacity(), 0u); // one launch, one buffer
}

TEST(WriteQueue, EveryLaunchHandedOverIsWrittenBeforeTheQueueGoes) {
  std::vector<uint64_t> written;
  {
    WriteQueue q(3, [&](LaunchRecord &r, const KernelMap &) { written.push_back(r.sequence); });
    for (uint64_t i = 0; i < 101; ++i)
      q.push(launch(i, 16), kMap);
  } // no wait_idle: the destructor drains
  ASSERT_EQ(written.size(), 101u);
  EXPECT_EQ(written.back(), 100u);
}

} // namespace
} // namespace cutrace
