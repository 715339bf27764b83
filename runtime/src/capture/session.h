// What the launch entry points (launch.h) ask the automatic-mode session besides launch().
#ifndef CUTRACE_SRC_SESSION_H
#define CUTRACE_SRC_SESSION_H

#include <cutrace/map.h>

namespace cutrace::detail {

// Whether cutrace::launch() would record this launch of `map`'s kernel now (tracing on, under
// CUTRACE_MAX_LAUNCHES); a refused launch is counted as launch() counts it. Allocates nothing.
bool admits(const KernelMap &map);

} // namespace cutrace::detail

#endif // CUTRACE_SRC_SESSION_H
