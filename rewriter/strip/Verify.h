// The rule checks of docs/annotations.md, combining the lexical scan with whatever Clang parses
// could run.
#ifndef CUTRACE_REWRITER_VERIFY_H
#define CUTRACE_REWRITER_VERIFY_H

#include "lex/AnnotationScanner.h"
#include "model/SourceModel.h"
#include "llvm/ADT/ArrayRef.h"
#include <string>
#include <vector>

namespace cutrace {

struct Verdict {
  std::vector<Problem> Problems; // errors and warnings located in the file
  struct UnparsedPass {
    std::string Pass;   // "host" or "device"
    std::string Reason; // why Clang stopped
  };
  std::vector<UnparsedPass> Unchecked;    // passes that could not parse: their checks did not run
  std::vector<std::string> ForeignErrors; // Clang errors in headers, inside annotated functions
  unsigned IgnoredClangErrors = 0;        // Clang errors outside annotated functions

  bool failed() const { return hasErrors(Problems) || !ForeignErrors.empty(); }
};

Verdict verifyAnnotations(const ScanResult &Scan, llvm::ArrayRef<ParseOutcome> Passes);

/// The placement rule for one annotation as the AST saw it, or nothing when it is allowed.
std::optional<std::string> placementError(const AnnotationUse &Use);

} // namespace cutrace

#endif
