#include "write_queue.h"

namespace cutrace {

WriteQueue::WriteQueue(size_t depth, Sink sink)
    : depth_(depth == 0 ? 1 : depth), sink_(std::move(sink)) {}

WriteQueue::~WriteQueue() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  work_.notify_all();
  if (thread_.joinable())
    thread_.join();
}

std::vector<uint8_t> WriteQueue::spare_buffer() {
  std::lock_guard<std::mutex> lock(mu_);
  if (spares_.empty())
    return {};
  std::vector<uint8_t> b = std::move(spares_.back());
  spares_.pop_back();
  b.clear(); // keeps its memory
  return b;
}

void WriteQueue::push(LaunchRecord &&launch, const KernelMap &map) {
  {
    std::unique_lock<std::mutex> lock(mu_);
    room_.wait(lock, [&] { return queue_.size() + writing_ < depth_; });
    queue_.push_back({std::move(launch), &map});
    most_held_ = std::max(most_held_, queue_.size() + writing_);
    if (!thread_.joinable())
      thread_ = std::thread([this] { run(); });
  }
  work_.notify_one();
}

void WriteQueue::wait_idle() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_.wait(lock, [&] { return queue_.empty() && writing_ == 0; });
}

size_t WriteQueue::held() {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size() + writing_;
}

size_t WriteQueue::most_held() {
  std::lock_guard<std::mutex> lock(mu_);
  return most_held_;
}

void WriteQueue::run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    work_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty())
      return; // stopping, and nothing left
    Item item = std::move(queue_.front());
    queue_.pop_front();
    ++writing_;
    lock.unlock();
    sink_(item.launch, *item.map);
    lock.lock();
    --writing_;
    if (spares_.size() <= depth_) // every buffer comes back while the launches are steady
      spares_.push_back(std::move(item.launch.buffer));
    room_.notify_one();
    if (queue_.empty() && writing_ == 0)
      idle_.notify_all();
  }
}

} // namespace cutrace
