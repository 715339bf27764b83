#include "detached.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

namespace cutrace {

namespace {

bool write_all(int fd, const void *data, size_t n) {
  const auto *p = static_cast<const char *>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return false;
    p += w, n -= size_t(w);
  }
  return true;
}

// Closes every descriptor above 2 but `keep`: a pipe the program's caller reads (a harness's
// extra descriptor, a socket) would otherwise stay open until the work ends.
void close_inherited(int keep) {
#ifdef SYS_close_range
  if ((keep <= 3 || ::syscall(SYS_close_range, 3u, unsigned(keep - 1), 0u) == 0) &&
      ::syscall(SYS_close_range, unsigned(keep + 1), ~0u, 0u) == 0)
    return;
#endif
  std::vector<int> open_fds;
  if (DIR *fds = ::opendir("/proc/self/fd")) {
    while (const dirent *e = ::readdir(fds))
      if (const int fd = std::atoi(e->d_name); fd > 2 && fd != keep && fd != ::dirfd(fds))
        open_fds.push_back(fd);
    ::closedir(fds);
  }
  for (int fd : open_fds)
    ::close(fd);
}

// The worker's side: standard streams on /dev/null, no other inherited descriptor but the pipe
// it reports on (returned, moved above 2), no terminal signals.
int become_worker(int report) {
  if (report <= 2)
    report = ::fcntl(report, F_DUPFD_CLOEXEC, 3);
  const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null >= 0)
    for (int fd = 0; fd < 3; ++fd)
      ::dup2(null, fd);
  close_inherited(report);
  std::signal(SIGHUP, SIG_IGN);
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGPIPE, SIG_IGN);
  return report;
}

} // namespace

std::optional<pid_t> run_detached(const std::function<void()> &work) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0)
    return std::nullopt;
  // One fork, not two: copying a CUDA program's page tables is the whole cost the program pays
  // here (measured: docs/PERFORMANCE.md, section 5). The worker is this program's child until the
  // program exits a moment later, then init's; a session of its own keeps it out of the
  // program's process group and terminal.
  const pid_t worker = ::fork();
  if (worker < 0) {
    ::close(pipe_fds[0]), ::close(pipe_fds[1]);
    return std::nullopt;
  }
  if (worker == 0) {
    ::close(pipe_fds[0]);
    ::setsid();
    const int report = become_worker(pipe_fds[1]);
    const char ready = 1;
    write_all(report, &ready, 1); // set up: the program may go
    ::close(report);
    try {
      work();
    } catch (...) { // never back into the program's own code
    }
    ::_exit(0); // no atexit handlers, no static destructors: they are the program's
  }
  ::close(pipe_fds[1]);
  char ready = 0;
  ssize_t got;
  do // one byte once the worker is set up; end of file if it died first
    got = ::read(pipe_fds[0], &ready, 1);
  while (got < 0 && errno == EINTR);
  ::close(pipe_fds[0]);
  if (got != 1)
    return std::nullopt;
  return worker;
}

} // namespace cutrace
