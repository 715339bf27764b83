// Exit statuses shared by every front end of the pipeline (documented in docs/cli.md).
#ifndef CUTRACE_REWRITER_PIPELINE_STATUS_H
#define CUTRACE_REWRITER_PIPELINE_STATUS_H

namespace cutrace {

enum ExitStatus { Ok = 0, AnnotationErrors = 1, UsageOrIo = 2, ParseFailure = 3 };

} // namespace cutrace

#endif
