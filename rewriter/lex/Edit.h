// Text edits by byte offsets in the original buffer: what traced plans and strip deletes, in one
// form the apply stage and the report share.
#ifndef CUTRACE_REWRITER_EDIT_H
#define CUTRACE_REWRITER_EDIT_H

#include "lex/Annotation.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace cutrace {

struct Edit {
  Span Range;
  std::string Text;
};

/// Strip deletions as edits.
std::vector<Edit> deletionEdits(const std::vector<Span> &Deletions);

/// Applies non-overlapping edits; overlapping edits are a planning bug and are reported.
llvm::Expected<std::string> applyEdits(llvm::StringRef Buffer, std::vector<Edit> Edits);

} // namespace cutrace

#endif
