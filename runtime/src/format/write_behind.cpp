// Writing an output's pieces on a thread of their own (write_behind.h).
#include "write_behind.h"

#include <cutrace/output_files.h>

namespace cutrace {

WriteBehind::WriteBehind(int fd) : fd_(fd), thread_([this] { run(); }) {}

WriteBehind::~WriteBehind() { finish(); }

bool WriteBehind::put(std::string_view piece) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return queue_.size() < kQueued || error_; });
  if (error_)
    return false;
  queue_.emplace_back(piece);
  changed_.notify_all();
  return true;
}

int WriteBehind::finish() {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (finished_)
      return error_;
    closing_ = true;
    changed_.notify_all();
  }
  thread_.join();
  finished_ = true;
  return error_;
}

void WriteBehind::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return !queue_.empty() || closing_; });
    if (queue_.empty())
      return; // closing, everything written
    std::string piece = std::move(queue_.front());
    queue_.pop_front();
    changed_.notify_all(); // room for the producer
    if (error_)
      continue; // drop the rest: the output failed
    lock.unlock();
    const int err = write_all(fd_, piece.data(), piece.size());
    lock.lock();
    if (err && !error_)
      error_ = err;
  }
}

} // namespace cutrace
