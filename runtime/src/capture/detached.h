// Work that must not hold up the program's exit (docs/launches.md, "At exit"): rendering a run
// into its page is done by a process of its own that outlives the program.
#ifndef CUTRACE_SRC_CAPTURE_DETACHED_H
#define CUTRACE_SRC_CAPTURE_DETACHED_H

#include <sys/types.h>

#include <functional>
#include <optional>

namespace cutrace {

// Runs `work` in a new process that outlives this one (it is this program's child until the
// program exits, then init's or the nearest subreaper's), in a session of its own (a terminal's
// Ctrl-C or hang-up does not reach it), with standard input, output and error on /dev/null and no
// other descriptor of the program: a pipe reading the program's output (`| tee`, a test harness)
// sees its end when the program ends, not when the work does. Returns the worker's pid once it is
// set up, or nullopt when no process could be made (the caller then does the work itself).
//
// The worker is a fork of this process with only the calling thread: `work` may use memory and
// files, never CUDA (a forked CUDA context is unusable) nor locks other threads might hold.
std::optional<pid_t> run_detached(const std::function<void()> &work);

} // namespace cutrace

#endif // CUTRACE_SRC_CAPTURE_DETACHED_H
