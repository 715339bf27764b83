// `trace-view merge-torch PROFILER.json RUN.ctrace -o OUT.pftrace`: torch.profiler's trace and a
// run as one Perfetto trace (cutrace/torch_merge.h, docs/torch.md).
#ifndef CUTRACE_TRACE_VIEW_MERGE_TORCH_H
#define CUTRACE_TRACE_VIEW_MERGE_TORCH_H

#include "command_line.h"

namespace trace_view {

// Returns the exit status (bad usage and unreadable input exit 2, an unwritable output 1).
int merge_torch_command(const MergeTorchArgs &args);

} // namespace trace_view

#endif
