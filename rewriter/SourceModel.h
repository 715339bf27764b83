// What one Clang parse (host or device pass) tells about the annotated file, as plain data keyed
// by byte offsets in the main file, so later stages never touch the AST.
#ifndef CUTRACE_REWRITER_SOURCEMODEL_H
#define CUTRACE_REWRITER_SOURCEMODEL_H

#include "Annotation.h"
#include "Problem.h"
#include "compat/CudaCompat.h"
#include <string>
#include <vector>

namespace cutrace {

enum class FunctionSide { Global, Device, Host, Lambda, None };

/// An annotation as seen in the AST.
struct AnnotationUse {
  unsigned MacroOffset = 0;
  FunctionSide Side = FunctionSide::None;
  std::string FunctionName;
  int Kernel = -1;   // index into SourceModel::Kernels when Side == Global
  Span Block;        // the enclosing compound statement, braces included
  Span FunctionBody; // the enclosing function's body, braces included
  bool BlockIsSwitchBody = false;
  std::vector<unsigned> LaterCaseLabels; // case labels after it in the same switch body
  std::vector<Problem> Problems;         // semantic rule violations (side effects)
};

struct KernelDecl {
  std::string Name; // as spelled
  std::string QualifiedName;
  std::vector<unsigned> ParamListEnds; // ')' of every declaration in the file, first first
  std::vector<bool> HasParams;
  Span Body; // braces included (definition)
  bool IsTemplate = false;
  bool HasParameterPack = false;
};

struct LaunchSite {
  int Kernel = -1;
  unsigned Offset = 0;  // the kernel name in `k<<<...>>>(...)`
  unsigned ArgsEnd = 0; // ')' closing the argument list
  bool HasWrittenArgs = false;
  bool OmitsDefaultedArgs = false;
  bool InMacro = false;
  bool ViaLaunchApi = false;       // cudaLaunchKernel / cudaLaunchKernelEx / cooperative
  std::string Grid, Block, Stream; // spelled launch configuration
  bool ConfigHasSideEffects = false;
};

struct ClangDiagnostic {
  Severity Level = Severity::Error;
  std::string Location; // file:line:col, empty when none
  std::string Message;
  bool InMainFile = false;
  unsigned Offset = 0; // when InMainFile (file location)
};

struct SourceModel {
  std::vector<AnnotationUse> Uses;
  std::vector<KernelDecl> Kernels;
  std::vector<LaunchSite> Launches;
  std::vector<unsigned> FunctionsWithErrors; // offsets of function bodies' '{' holding errors
  std::vector<Span> FunctionBodies;          // every function body written in the file, braces
                                             // included (template instantiations repeat theirs)
};

struct ParseOutcome {
  compat::CudaPass Pass = compat::CudaPass::Host;
  bool Ran = false;          // the front end ran to the end of the file
  std::string FailureReason; // why it did not
  std::vector<ClangDiagnostic> Diagnostics;
  SourceModel Model;

  unsigned errorCount() const;
};

/// Parses File with Clang in one CUDA pass and extracts the model.
ParseOutcome parseSource(llvm::StringRef File, const compat::ParseOptions &Options,
                         compat::CudaPass Pass);

} // namespace cutrace

#endif
