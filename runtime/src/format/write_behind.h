// Writes an output's pieces to its file on a thread of its own, so that making the next piece and
// the kernel's copying of the last one into the page cache overlap (on this project's 2-core
// machine, writing costs about as much CPU as making a Perfetto trace: docs/PERFORMANCE.md, "4a").
// At most kQueued pieces wait, so memory stays bounded. Internal to cutrace_format.
#ifndef CUTRACE_FORMAT_WRITE_BEHIND_H
#define CUTRACE_FORMAT_WRITE_BEHIND_H

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace cutrace {

class WriteBehind {
public:
  explicit WriteBehind(int fd);
  ~WriteBehind(); // finish()es
  WriteBehind(const WriteBehind &) = delete;
  WriteBehind &operator=(const WriteBehind &) = delete;

  // Queues a copy of `piece`, waiting while kQueued pieces wait; false once a write failed.
  bool put(std::string_view piece);
  // Waits until every queued piece is written; the errno of the first failed write, or 0.
  int finish();

private:
  static constexpr size_t kQueued = 4;
  void run();
  int fd_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::string> queue_;
  bool closing_ = false, finished_ = false;
  int error_ = 0;
  std::thread thread_;
};

} // namespace cutrace

#endif
