// What `--auto` needs from a Clang parse (docs/auto.md): every kernel defined in the file and
// the outermost loops of its body, as byte offsets.
#ifndef CUTRACE_REWRITER_AUTOLOOPS_H
#define CUTRACE_REWRITER_AUTOLOOPS_H

#include "model/SourceModel.h"
#include "clang/AST/Decl.h"
#include <vector>

namespace cutrace {

struct AutoKernelFound {
  const clang::FunctionDecl *Definition = nullptr; // the definition (a template's pattern)
  std::vector<LoopSite> Loops;                     // its outermost loops, in file order
};

/// The kernels defined in Target (not instantiations: a template's pattern), and in each the
/// loops no other loop of the body encloses; loops in lambdas written in the body belong to the
/// lambda, and loops or bodies spelled by macros are left out.
std::vector<AutoKernelFound> autoKernelsIn(clang::TranslationUnitDecl *TU,
                                           const clang::FileEntry *Target);

/// Loops of From that Into does not hold yet (another pass's view of the kernel).
void mergeLoops(std::vector<LoopSite> &Into, const std::vector<LoopSite> &From);

} // namespace cutrace

#endif
