// Read stage: the file to rewrite and the compile arguments its Clang parse uses.
#ifndef CUTRACE_REWRITER_PIPELINE_INPUT_H
#define CUTRACE_REWRITER_PIPELINE_INPUT_H

#include "compat/CudaCompat.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cutrace {

struct SourceFile {
  std::string Path;
  std::shared_ptr<llvm::MemoryBuffer> Buffer; // shared: a run's result keeps the text it read
  llvm::StringRef text() const { return Buffer->getBuffer(); }
};

/// A source larger than this is refused (docs/cli.md, "Limits"): a hundred times a large
/// generated source, far below the 2 GiB a Clang source manager can address.
inline constexpr uint64_t MaxSourceBytes = uint64_t(256) << 20;

/// The file's bytes as they are (no newline conversion), NUL-terminated for the lexer; one larger
/// than MaxSourceBytes (a FIFO or a device that never ends included) is an error.
llvm::Expected<SourceFile> readSource(const std::string &Path);

/// Where compile flags come from, in order of precedence (later wins for -D/-U).
struct CompileSettings {
  std::string CudaPath = "/usr/local/cuda";
  std::string GpuArch = "sm_90"; // one arch or a comma-separated list; an -arch or -gencode of
                                 // the compile command (database or `--`) replaces it
  std::string BuildPath;         // -p: directory holding compile_commands.json
  bool FindDatabase = true;      // without -p, look for compile_commands.json upward from the file
  std::vector<std::string> ExtraArgs;   // --extra-arg, passed to Clang as they are
  std::vector<std::string> CommandTail; // what followed `--`: a compiler command line
};

/// Why a Clang parse with these settings cannot start, if it cannot: no CUDA installation at
/// CudaPath, or a GPU architecture that is not spelled sm_NN.
std::optional<std::string> compileSettingsProblem(const CompileSettings &Settings);

/// Compile flags for a file: from the -p database or a compile_commands.json found upward from
/// the file, then --extra-arg, then the command after `--`. A -p database that cannot be loaded
/// is a warning on Warnings, not an error.
compat::ParseOptions parseOptionsFor(const std::string &Path, const CompileSettings &Settings,
                                     llvm::raw_ostream &Warnings);

} // namespace cutrace

#endif
