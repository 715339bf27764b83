// Headers compiled into the tool so a parse never depends on the user's include paths.
#ifndef CUTRACE_REWRITER_COMPAT_EMBEDDEDHEADERS_H
#define CUTRACE_REWRITER_COMPAT_EMBEDDEDHEADERS_H

namespace cutrace::compat {
extern const char *const EmbeddedTraceHeader;
extern const char *const EmbeddedIntrinsicsHeader;
} // namespace cutrace::compat

#endif
