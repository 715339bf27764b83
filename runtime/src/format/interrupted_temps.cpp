// Temporary outputs removed on an interrupting signal (cutrace/output_files.h, remember_temp).
#include <cutrace/output_files.h>

#include <atomic>
#include <climits>
#include <csignal>
#include <cstring>
#include <mutex>
#include <unistd.h>

namespace cutrace {
namespace {

// The handler may run at any point of the owner's code, so it reads only a fixed table whose
// slots are published with an atomic state after their path is complete.
enum : int { kFree = 0, kFilling = 1, kReady = 2 };
constexpr int kSlots = 64; // more outputs than one run of either tool writes
struct Slot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX];
};
Slot slots[kSlots];

void remove_temps_and_reraise(int sig) {
  for (Slot &s : slots)
    if (s.state.load(std::memory_order_acquire) == kReady)
      ::unlink(s.path); // async-signal-safe
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void install_handlers() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction current {};
    if (::sigaction(sig, nullptr, &current) != 0 || current.sa_handler != SIG_DFL)
      continue; // a program's own handler (or an ignored signal) is left alone
    struct sigaction ours {};
    ours.sa_handler = remove_temps_and_reraise;
    sigemptyset(&ours.sa_mask);
    ::sigaction(sig, &ours, nullptr);
  }
}

} // namespace

int remember_temp(const char *path) {
  static std::once_flag installed;
  std::call_once(installed, install_handlers);
  if (std::strlen(path) >= PATH_MAX)
    return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (slots[i].state.compare_exchange_strong(expected, kFilling, std::memory_order_acq_rel)) {
      std::strcpy(slots[i].path, path);
      slots[i].state.store(kReady, std::memory_order_release);
      return i;
    }
  }
  return -1;
}

void forget_temp(int slot) {
  if (slot >= 0 && slot < kSlots)
    slots[slot].state.store(kFree, std::memory_order_release);
}

} // namespace cutrace
