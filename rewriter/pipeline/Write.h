// Write stage: every output of a run, all or nothing, through the output code trace-view shares
// (cutrace/output_files.h): regular files are written to temporary files beside their targets and
// renamed into place only when all of them were written; "-" is stdout; FIFOs and devices are
// written to, never replaced; a symbolic link to a regular file stays a link.
#ifndef CUTRACE_REWRITER_PIPELINE_WRITE_H
#define CUTRACE_REWRITER_PIPELINE_WRITE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>

namespace cutrace {

struct OutputFile {
  std::string Path; // "-" is stdout
  llvm::StringRef Text;
};

struct WriteFailure {
  std::string Path;    // the output that could not be written
  std::string Message; // "cannot write 'x': reason", for a one-line error
};

/// Writes every output or, on the first failure, none of the regular files (temporaries are
/// removed). Missing parent directories are created.
std::optional<WriteFailure> writeOutputs(llvm::ArrayRef<OutputFile> Outputs);

} // namespace cutrace

#endif
