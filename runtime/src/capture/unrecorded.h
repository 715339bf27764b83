// Launches of traced kernels that ran unrecorded although the launch selection asked for them,
// because cutrace could not route them (docs/launches.md, "Launches cutrace cannot record"):
// counted per kernel instance with the reason, and said at exit, one line each.
#ifndef CUTRACE_SRC_UNRECORDED_H
#define CUTRACE_SRC_UNRECORDED_H

#include <cutrace/map.h>

#include <string>
#include <vector>

namespace cutrace::detail {

// A launch of an unregistered kernel through a rewritten launch site: when its name (as CUDA
// reports it) is a kernel with a registerUnrouted() entry, the launch is admitted and, if the
// selection records it, counted with that entry's reason. Costs one atomic load while no entry
// exists; then one name query per distinct pointer.
void count_unregistered_launch(const void *func);

// The instance name of a kernel from the name CUDA reports (mangled or not): `ns::gemm<float>`
// from `_ZN2ns4gemmIfEEvPf`; `base` gets it without template arguments (`ns::gemm`).
std::string instance_name(const char *reported, std::string *base);

// One line per kernel instance with launches counted above or through handles:
// `cutrace: gemm<float>: 101 launches ran unrecorded: <why>`; in the order first counted.
std::vector<std::string> unrecorded_lines();

} // namespace cutrace::detail

#endif // CUTRACE_SRC_UNRECORDED_H
