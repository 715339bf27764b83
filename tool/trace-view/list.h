// `trace-view list FILE...`: every launch of a run with its sequence number and completeness.
#ifndef CUTRACE_TRACE_VIEW_LIST_H
#define CUTRACE_TRACE_VIEW_LIST_H

#include "command_line.h"

namespace trace_view {

// Returns the exit status (bad usage and unreadable input exit 2).
int list_command(const ListArgs &args);

} // namespace trace_view

#endif
