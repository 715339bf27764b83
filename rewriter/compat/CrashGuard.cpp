#include "compat/CrashGuard.h"

#include <csetjmp>
#include <csignal>
#include <cstdlib>
#include <mutex>
#include <pthread.h>

namespace cutrace::compat {
namespace {

constexpr size_t ParseStackBytes = size_t(1) << 30; // reserved, touched only as used
constexpr size_t AltStackBytes = 256 << 10;
constexpr int Signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

thread_local sigjmp_buf *Landing = nullptr;

void onCrash(int Signal) {
  if (Landing)
    siglongjmp(*Landing, Signal);
  // A crash outside a guarded run: die as the signal would have.
  std::signal(Signal, SIG_DFL);
  std::raise(Signal);
}

// The handlers are the process's; runs on several threads at once (the host and device passes)
// install them with the first and put the previous ones back with the last.
std::mutex HandlersMutex;
unsigned GuardedRuns = 0;
struct sigaction Previous[std::size(Signals)];

void installHandlers() {
  std::lock_guard<std::mutex> Lock(HandlersMutex);
  if (GuardedRuns++)
    return;
  struct sigaction Handler {};
  Handler.sa_handler = onCrash;
  Handler.sa_flags = SA_ONSTACK | SA_NODEFER;
  sigemptyset(&Handler.sa_mask);
  for (size_t I = 0; I < std::size(Signals); ++I)
    sigaction(Signals[I], &Handler, &Previous[I]);
}

void restoreHandlers() {
  std::lock_guard<std::mutex> Lock(HandlersMutex);
  if (--GuardedRuns)
    return;
  for (size_t I = 0; I < std::size(Signals); ++I)
    sigaction(Signals[I], &Previous[I], nullptr);
}

struct Job {
  llvm::function_ref<void()> Fn;
  bool Crashed = false;
};

void *guardedThread(void *Arg) {
  Job &J = *static_cast<Job *>(Arg);
  // The handler must run on a stack of its own: the crash may be the thread's stack overflowing.
  stack_t Alt{};
  Alt.ss_sp = std::malloc(AltStackBytes);
  Alt.ss_size = AltStackBytes;
  sigaltstack(&Alt, nullptr);
  sigjmp_buf Env;
  if (sigsetjmp(Env, 1) == 0) {
    Landing = &Env;
    J.Fn();
  } else {
    J.Crashed = true;
  }
  Landing = nullptr;
  stack_t Off{};
  Off.ss_flags = SS_DISABLE;
  sigaltstack(&Off, nullptr);
  std::free(Alt.ss_sp);
  return nullptr;
}

} // namespace

bool runGuarded(llvm::function_ref<void()> Fn) {
  installHandlers();
  Job J{Fn};
  pthread_attr_t Attr;
  pthread_attr_init(&Attr);
  pthread_attr_setstacksize(&Attr, ParseStackBytes);
  pthread_t Thread;
  if (pthread_create(&Thread, &Attr, guardedThread, &J) == 0)
    pthread_join(Thread, nullptr);
  else
    guardedThread(&J); // no thread to be had: run here, still guarded
  pthread_attr_destroy(&Attr);
  restoreHandlers();
  return !J.Crashed;
}

} // namespace cutrace::compat
