// Every Clang-19-versus-CUDA-13 quirk in one place: the flags a parse needs, the stub headers
// it needs, where clang's resource directory is, and how nvcc-only flags are translated.
#ifndef CUTRACE_REWRITER_COMPAT_CUDACOMPAT_H
#define CUTRACE_REWRITER_COMPAT_CUDACOMPAT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/IntrusiveRefCntPtr.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <string>
#include <vector>

namespace cutrace::compat {

/// Clang compiles CUDA once for the host and once per GPU arch; a tool run sees one of them.
enum class CudaPass { Host, Device };
llvm::StringRef passName(CudaPass Pass);

struct ParseOptions {
  std::string CudaPath = "/usr/local/cuda";
  std::string GpuArch = "sm_90";
  std::vector<std::string> ExtraArgs; // user flags: -D, -I, -std, ... already translated
};

/// The full command line (argv[0] first, the file last) for a syntax-only parse of File.
std::vector<std::string> parseCommand(const ParseOptions &Options, CudaPass Pass,
                                      llvm::StringRef File);

/// The real file system with the tool's own headers laid over it under a virtual directory:
/// the annotation header in its parse view and the CUDA 13 stubs.
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> parseFileSystem();

/// Clang's resource directory (builtin headers, CUDA wrappers), found without user help:
/// $CUTRACE_CLANG_RESOURCE_DIR, then the directory of the Clang we were built against.
std::string clangResourceDir();

/// Keeps what a parse needs from a compiler command (nvcc or clang): -D, -U, -I, -isystem,
/// -include, -std; drops the rest (nvcc's -arch, -gencode, --expt-*, -Xcompiler, outputs).
std::vector<std::string> translateCompileCommand(llvm::ArrayRef<std::string> Command);

/// Errors Clang 19 reports on code nvcc accepts (e.g. a libcu++ barrier in __shared__
/// memory): not evidence that an annotated function is broken.
bool isClangOnlyError(llvm::StringRef Message);

} // namespace cutrace::compat

#endif
