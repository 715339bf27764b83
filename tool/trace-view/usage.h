// The --help text of each trace-view command, written for the reader: the synopsis whose options
// docs/viewer.md and docs/cli.md list in the same order (test/docs/check_synopsis.py), what each
// option does and the exit status. command_line.cpp has CLI11 print them.
#ifndef CUTRACE_TRACE_VIEW_USAGE_H
#define CUTRACE_TRACE_VIEW_USAGE_H

namespace trace_view {

extern const char *const kViewUsage;    // trace-view FILE.ctrace... [--html OUT] ...
extern const char *const kAnalyzeUsage; // trace-view analyze FILE.ctrace ...
extern const char *const kDiffUsage;    // trace-view diff A.ctrace B.ctrace ...
extern const char *const kListUsage;    // trace-view list FILE.ctrace...
extern const char *const kMergeTorchUsage; // trace-view merge-torch PROFILER.json RUN.ctrace ...

} // namespace trace_view

#endif
