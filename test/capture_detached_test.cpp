// Work handed to a detached process at exit (runtime/src/capture/detached.h, docs/launches.md
// "At exit"): it runs to its end in a process that is not the program's child, holds none of the
// program's descriptors (a pipe reading the program ends with the program) and has /dev/null as
// its standard streams. Pure POSIX: no GPU, no timing (waits are on events, not on clocks).
#include "capture/detached.h"

#include "support/scratch_dir.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace cutrace {
namespace {

namespace fs = std::filesystem;

bool file_exists(const fs::path &p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

TEST(Detached, WorkRunsToItsEndInAProcessThatHoldsNoneOfTheProgramsDescriptors) {
  // The worker is reparented to this test (not to init), so the test can wait for it.
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  const fs::path dir = test_support::scratch_dir("detached_");
  const fs::path go = dir / "go", done = dir / "done";
  int out[2];
  ASSERT_EQ(::pipe(out), 0); // inheritable, as a harness's pipe is
  const std::optional<pid_t> worker = run_detached([&] {
    while (!file_exists(go)) // the test lets it finish only after looking at it
      ::usleep(1000);
    std::ofstream(done) << ::getpid();
  });
  ASSERT_TRUE(worker.has_value());
  EXPECT_NE(*worker, ::getpid());
  // Its standard streams are /dev/null while it waits.
  const fs::path fd1 = "/proc/" + std::to_string(*worker) + "/fd/1";
  std::error_code ec;
  EXPECT_EQ(fs::read_symlink(fd1, ec), fs::path("/dev/null")) << ec.message();
  EXPECT_NE(::getsid(*worker), ::getsid(0)); // out of reach of the terminal's signals
  // The pipe has no writer left once this process closes its end, although the worker runs on.
  ::close(out[1]);
  pollfd p{out[0], POLLIN, 0};
  ASSERT_EQ(::poll(&p, 1, 60'000), 1); // returns at once when right; 60 s only when broken
  char c;
  EXPECT_EQ(::read(out[0], &c, 1), 0); // end of file, not data
  ::close(out[0]);
  EXPECT_FALSE(file_exists(done));
  std::ofstream(go) << "";
  int status = 0;
  ASSERT_EQ(::waitpid(*worker, &status, 0), *worker);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  std::string pid;
  std::ifstream(done) >> pid;
  EXPECT_EQ(pid, std::to_string(*worker));
}

TEST(Detached, WorkThatThrowsEndsItsProcessQuietly) {
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  const std::optional<pid_t> worker = run_detached([] { throw std::runtime_error("x"); });
  ASSERT_TRUE(worker.has_value());
  int status = 0;
  ASSERT_EQ(::waitpid(*worker, &status, 0), *worker);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

} // namespace
} // namespace cutrace
