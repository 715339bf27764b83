// What the calls of a whole translation unit say about tracing (docs/design.md, "Calls across
// files"): which functions reach annotations, which kernels reach them, and where those kernels
// and their callees are written. One walk of the AST serves the header selection and every
// file's model.
#ifndef CUTRACE_REWRITER_UNITCALLS_H
#define CUTRACE_REWRITER_UNITCALLS_H

#include "llvm/ADT/DenseSet.h"
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace clang {
class ASTContext;
class FileEntry;
class FunctionDecl;
} // namespace clang

namespace cutrace {

struct CallFacts {
  /// Functions (canonical declarations, template instances each on their own) that hold
  /// annotations or call, directly or not, one that does.
  llvm::DenseSet<const clang::FunctionDecl *> Reaching;
  using FileUse = std::pair<const clang::FunctionDecl *, const clang::FileEntry *>;
  std::vector<FileUse> KernelFiles; // where each kernel (template instances too) is defined
  std::vector<FileUse> KernelNames; // where each kernel is launched or named
  /// Files defining a function that a kernel reaching annotations calls on its way to them.
  llvm::DenseSet<const clang::FileEntry *> OnTracedPath;
  /// Files declaring, without defining it there, a kernel or __device__ function that reaches
  /// annotations: its twin is declared beside each declaration.
  llvm::DenseSet<const clang::FileEntry *> DeclaresTraced;
  /// For each file, the functions defined there that reach annotations and that a kernel of
  /// another file reaches: the '{' of the body -> that kernel, as warnings name it
  /// (`'kit::device_kernel' (device_kernel.h)`).
  std::map<const clang::FileEntry *, std::map<unsigned, std::string>> ReachedFromKernelElsewhere;
};

CallFacts analyzeCalls(clang::ASTContext &Ctx);

} // namespace cutrace

#endif
