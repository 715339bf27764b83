// The raw token stream of a file as the lexical stage reads it: every token of every preprocessor
// branch, no macro expanded, with each token's brace depth and whether it belongs to a directive.
#ifndef CUTRACE_REWRITER_RAWTOKENS_H
#define CUTRACE_REWRITER_RAWTOKENS_H

#include "clang/Basic/TokenKinds.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace cutrace {

struct RawToken {
  clang::tok::TokenKind Kind;
  unsigned Offset;
  unsigned Length;
  llvm::StringRef Text;
  bool InDirective;
  bool StartsLine;
  unsigned Depth;        // brace depth before this token (directives excluded)
  int MatchingOpen = -1; // for ')', index of its '('

  unsigned end() const { return Offset + Length; }
  bool isIdentifier(llvm::StringRef Name) const {
    return Kind == clang::tok::raw_identifier && Text == Name;
  }
};

/// Every token of the buffer, as a raw lexer sees it: no preprocessing, all branches.
std::vector<RawToken> lexAll(llvm::StringRef Buffer);

/// An identifier as the compiler reads it: backslash-newline splices (phase 2) removed.
std::string withoutLineSplices(llvm::StringRef Spelled);

/// An operator that writes its operand: `=`, a compound assignment, `++` or `--`.
bool isAssignment(clang::tok::TokenKind Kind);

} // namespace cutrace

#endif
