// Every Clang-19-versus-CUDA-13 quirk in one place: the flags a parse needs, the stub headers
// it needs, where clang's resource directory is, and how nvcc-only flags are translated.
#ifndef CUTRACE_REWRITER_COMPAT_CUDACOMPAT_H
#define CUTRACE_REWRITER_COMPAT_CUDACOMPAT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/IntrusiveRefCntPtr.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <optional>
#include <string>
#include <vector>

namespace cutrace::compat {

/// Clang compiles CUDA once for the host and once per GPU arch; a tool run sees one of them.
enum class CudaPass { Host, Device };
llvm::StringRef passName(CudaPass Pass);

struct ParseOptions {
  std::string CudaPath = "/usr/local/cuda";
  std::string GpuArch = "sm_90"; // the arch this parse's device pass compiles for
  /// Every device arch of the build, as nvcc names them (sm_80, sm_90a, sm_100f); empty means
  /// {GpuArch}. Only __CUDA_ARCH_LIST__ depends on it; the pipeline parses each distinct one.
  std::vector<std::string> GpuArchs;
  bool Traced = false; // the parse of a traced run: defines CUTRACE_TRACED (docs/annotations.md)
  std::vector<std::string> ExtraArgs; // user flags: -D, -I, -std, ... already translated
  bool AutoKernels = false;           // --auto: the model lists every kernel defined in the file
};

/// How deep blocks, parentheses and brackets may nest in a parse (-fbracket-depth): the most
/// Clang 19's 16-bit delimiter counts hold; nvcc 13 accepts deeper (docs/cli.md, "Limits").
inline constexpr unsigned MaxBracketDepth = 65535;

/// The full command line (argv[0] first, the file last) for a syntax-only parse of File.
std::vector<std::string> parseCommand(const ParseOptions &Options, CudaPass Pass,
                                      llvm::StringRef File);

/// The toolkit's nvcc version (13.0.88), as nvcc predefines it in __CUDACC_VER_*__.
struct CudaVersion {
  unsigned Major = 0, Minor = 0, Build = 0;
};
/// Read from <CudaPath>/version.json (cuda_nvcc), else the pip layout's
/// dist-info/nvidia_cuda_nvcc-X.Y.Z.dist-info, else CUDA_VERSION in include/cuda.h (build 0).
std::optional<CudaVersion> cudaVersion(llvm::StringRef CudaPath);

/// The macros nvcc predefines that a Clang parse lacks, as -D/-U flags for one pass
/// (docs/design.md, "The parse environment"): __NVCC__, __CUDACC_VER_*__, __CUDA_API_VER_*__,
/// __CUDA_ARCH_LIST__, and in the device pass the arch-specific ones Clang 19 does not define.
std::vector<std::string> nvccPredefines(const ParseOptions &Options, CudaPass Pass);

/// How Clang 19 parses one device arch of an nvcc build.
struct ArchParse {
  std::string ClangArch;            // what --cuda-gpu-arch gets
  unsigned ArchValue = 0;           // __CUDA_ARCH__ as nvcc defines it (1000 for sm_100a)
  bool Fallback = false;            // Clang 19 cannot target the arch: ClangArch is the nearest
                                    // lower one, and __CUDA_ARCH__ is redefined to ArchValue
  std::vector<std::string> Defines; // device-pass -U/-D flags that make ClangArch look like it
};
/// Arch is sm_NN[a|f] or compute_NN[a|f]; an arch nvcc 13 does not know is passed on unchanged.
ArchParse archParse(llvm::StringRef Arch);

/// The GPU arches a compile command (nvcc or clang) builds device code for, in order, spelled
/// sm_NN[a|f], each once; what nvcc 13 cannot compile (below sm_75, unknown) goes to Dropped.
struct BuildArchs {
  std::vector<std::string> Archs;
  std::vector<std::string> Dropped;
};
BuildArchs buildArchsOf(llvm::ArrayRef<std::string> Command);

/// Arches whose parses are identical (sm_90 and compute_90) kept once, first spelling first.
std::vector<std::string> distinctParses(llvm::ArrayRef<std::string> Archs);

/// The real file system with the tool's own headers laid over it under a virtual directory:
/// the annotation header in its parse view and the CUDA 13 stubs.
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> parseFileSystem();

/// Clang's resource directory (builtin headers, CUDA wrappers), found without user help:
/// $CUTRACE_CLANG_RESOURCE_DIR, then the directory of the Clang we were built against.
std::string clangResourceDir();

/// The folders of the toolchain's own headers, real paths ending in '/': the CUDA toolkit, Clang's
/// resource directory and the host's C and C++ library headers (/usr/include, /usr/lib/gcc). No
/// annotation, kernel or launch of the user's lives there, so a parse may skip the bodies of
/// functions they define that its models never read (docs/design.md, "The parse environment").
std::vector<std::string> toolchainHeaderDirs(const ParseOptions &Options);

/// Keeps what a parse needs from a compiler command (nvcc or clang): -D, -U, -I, -isystem,
/// -include, -std, and the macros nvcc predefines for its dialect flags (-rdc=true:
/// __CUDACC_RDC__, --extended-lambda, --expt-relaxed-constexpr, -G); drops the rest (-arch and
/// -gencode are read by buildArchsOf, -Xcompiler, outputs).
std::vector<std::string> translateCompileCommand(llvm::ArrayRef<std::string> Command);

/// Errors Clang 19 reports on code nvcc accepts (e.g. a libcu++ barrier in __shared__
/// memory): not evidence that an annotated function is broken.
bool isClangOnlyError(llvm::StringRef Message);

/// The same for an error whose text before it on its line is known (main-file diagnostics):
/// why nvcc accepts it, or nothing when it is a real error. Before ends at the error's column.
std::optional<std::string> clangOnlyReason(llvm::StringRef Message, llvm::StringRef Before);

} // namespace cutrace::compat

#endif
