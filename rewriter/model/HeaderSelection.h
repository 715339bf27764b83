// Which headers of a translation unit the traced build copies (docs/design.md, "Headers"), and
// why: read from the include graph and the AST, so that a library header found through -I,
// -isystem or `#pragma GCC system_header` is copied exactly when it holds something to trace.
#ifndef CUTRACE_REWRITER_HEADERSELECTION_H
#define CUTRACE_REWRITER_HEADERSELECTION_H

#include "model/SourceModel.h"
#include "model/UnitCalls.h"
#include <map>
#include <utility>
#include <vector>

namespace clang {
class ASTContext;
class FileEntry;
} // namespace clang

namespace cutrace {

/// One #include of the translation unit: who includes what, and where it is written.
struct Inclusion {
  const clang::FileEntry *Includer = nullptr;
  const clang::FileEntry *Included = nullptr;
  IncludeSite Site;
};

/// Every header that needs a traced copy, with what it holds (HeaderModel's flags, Path empty).
std::vector<std::pair<const clang::FileEntry *, HeaderModel>>
selectHeaders(clang::ASTContext &Ctx, const std::vector<Inclusion> &Inclusions,
              const CallFacts &Calls);

/// True when the header holds something the traced build edits (its copy needs a model of its
/// own and the runtime's headers), not only includes of copied headers.
bool needsModel(const HeaderModel &H);

/// Why a header was copied, in a few words, for --explain.
std::string copyReason(const HeaderModel &H);

} // namespace cutrace

#endif
