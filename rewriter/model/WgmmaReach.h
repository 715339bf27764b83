// Whether code issues wgmma, directly or through the functions it calls: what a TRACE_SAMPLE of a
// Hopper k-loop is warned about (docs/annotations.md, "TRACE_SAMPLE"), since on some kernels the
// second copy of such a loop cost as much as recording every iteration.
#ifndef CUTRACE_REWRITER_WGMMAREACH_H
#define CUTRACE_REWRITER_WGMMAREACH_H

#include "llvm/ADT/DenseMap.h"

namespace clang {
class FunctionDecl;
class Stmt;
} // namespace clang

namespace cutrace {

/// Answers per statement; remembers each function's answer for the parse (CuTe's and CUTLASS's
/// call trees share most of their callees).
class WgmmaReach {
public:
  /// An inline asm statement whose text holds `wgmma.mma_async` in S, or in a function S calls,
  /// constructs with, or names (a function handed on to be called), whose definition this
  /// parse has, at any depth.
  bool issues(const clang::Stmt *S);

private:
  bool calls(const clang::FunctionDecl *F);
  llvm::DenseMap<const clang::FunctionDecl *, bool> Known;
};

} // namespace cutrace

#endif
