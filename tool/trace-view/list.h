// `trace-view list FILE...`: every launch of a run with its sequence number and completeness.
#ifndef CUTRACE_TRACE_VIEW_LIST_H
#define CUTRACE_TRACE_VIEW_LIST_H

namespace trace_view {

// argv[0] is "list". Returns the exit status (bad usage and unreadable input exit 2).
int list_command(int argc, char **argv);

} // namespace trace_view

#endif
