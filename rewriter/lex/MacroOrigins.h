// Annotations produced by the file's own macros (docs/annotations.md, "annotation may not be
// produced by the expansion of macro"), found on the raw tokens: strip and verify-strip must
// refuse them in every preprocessor configuration, without a parse.
#ifndef CUTRACE_REWRITER_MACROORIGINS_H
#define CUTRACE_REWRITER_MACROORIGINS_H

#include "lex/RawTokens.h"
#include "llvm/ADT/StringSet.h"
#include <vector>

namespace cutrace {

class MacroOrigins {
public:
  /// Reads every `#define` of the file (all branches) before any use is judged: a function-like
  /// macro's body is expanded where it is used, so a later definition can still feed it.
  explicit MacroOrigins(const std::vector<RawToken> &Tokens);

  /// True when a use of the macro at code token I can expand to an annotation: its replacement
  /// names an annotation (or such a macro), or it pastes tokens with `##` (itself or through
  /// another of the file's macros) and its arguments hold a piece of an annotation name.
  bool producesAnnotation(size_t I) const;

  /// True when the file #defines Name (in any branch).
  bool defines(llvm::StringRef Name) const;

private:
  struct Macro {
    llvm::StringRef Name;
    size_t Begin, End; // replacement list token range
    std::vector<llvm::StringRef> Params;
    bool FunctionLike = false;
  };
  const std::vector<RawToken> &Tokens;
  std::vector<Macro> Macros;
  llvm::StringSet<> Annotating, Pasting, Fragment, FunctionLike;

  void classify();
};

/// True when Id (two characters or more) could be pasted into an annotation name: it is part of
/// one, as `TRACE_`, `RECORD` or `CE_REC` are.
bool isAnnotationNamePiece(llvm::StringRef Id);

} // namespace cutrace

#endif
