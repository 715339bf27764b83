// `trace-view analyze FILE ...` (docs/analysis.md): the analyses of one launch as terminal tables
// or JSON.
#ifndef CUTRACE_TRACE_VIEW_ANALYZE_H
#define CUTRACE_TRACE_VIEW_ANALYZE_H

#include "command_line.h"

namespace trace_view {

// Returns the exit status (0 done, 1 an output could not be written; bad
// usage and unreadable input exit 2).
int analyze_command(const AnalyzeArgs &args);

} // namespace trace_view

#endif
