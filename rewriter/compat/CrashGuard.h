// Clang can crash on input it was never meant to see (a stack overflow on an expression of tens
// of thousands of terms, an internal error). The tool must then say so and exit, never die with
// a signal, so each parse runs under this guard.
#ifndef CUTRACE_REWRITER_COMPAT_CRASHGUARD_H
#define CUTRACE_REWRITER_COMPAT_CRASHGUARD_H

#include "llvm/ADT/STLExtras.h"

namespace cutrace::compat {

/// Runs Fn on a thread with a large stack (deep but legal code then parses), catching a crash
/// inside it, a stack overflow included. False when Fn crashed; its state is then abandoned.
bool runGuarded(llvm::function_ref<void()> Fn);

} // namespace cutrace::compat

#endif
