// The rewrite report as one self-contained, offline HTML file: a sidebar of stages and changed
// kernels, side-by-side diffs with intra-line highlights and foldable context, keyboard
// navigation. Also where such reports go: a new timestamped run folder per run, and `latest`.
#ifndef CUTRACE_REWRITER_EXPLAINHTML_H
#define CUTRACE_REWRITER_EXPLAINHTML_H

#include "report/RunReport.h"
#include "llvm/Support/Error.h"
#include <string>

namespace cutrace {

std::string renderHtml(const RunReport &Report);

/// Text safe inside HTML element content and attribute values.
std::string escapeHtml(llvm::StringRef Text);

/// Creates Dir/run-YYYYmmdd-HHMMSS (with -1, -2, ... when taken) and returns its path; earlier
/// runs are never touched.
llvm::Expected<std::string> createRunFolder(llvm::StringRef Dir);

/// Points Dir/latest at RunFolder: a relative symlink, or a copy of its files where links fail.
llvm::Error pointLatest(llvm::StringRef Dir, llvm::StringRef RunFolder);

} // namespace cutrace

#endif
