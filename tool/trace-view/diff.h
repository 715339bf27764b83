// `trace-view diff A B ...` (docs/analysis.md, "Comparing two traces"): two traces of one kernel
// compared per event name and TRACE_DAG pair, with run-to-run noise marked.
#ifndef CUTRACE_TRACE_VIEW_DIFF_H
#define CUTRACE_TRACE_VIEW_DIFF_H

#include "command_line.h"

namespace trace_view {

// Returns the exit status (0 done, 1 an output could not be written; bad usage,
// unreadable input and two different kernels without --force exit 2).
int diff_command(const DiffArgs &args);

} // namespace trace_view

#endif
