// What an nvcc command line asks for, read the way nvcc reads it: which arguments are inputs
// (and which of them are CUDA sources), where the output and the dependency file go, whether
// the command links, and the flags a Clang parse of its sources needs (docs/cli.md,
// "cutrace-nvcc").
#ifndef CUTRACE_TOOL_NVCC_COMMAND_H
#define CUTRACE_TOOL_NVCC_COMMAND_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <vector>

namespace cutrace {

struct NvccInput {
  size_t ArgIndex = 0; // position in NvccCommand::Args
  std::string Path;    // as written on the command line
  bool IsCuda = false; // a .cu file, or any file after `-x cu`
};

struct NvccCommand {
  std::vector<std::string> Args; // the arguments after the compiler, untouched
  std::vector<NvccInput> Inputs;
  std::string Output;            // -o, --output-file; empty when not given
  bool Links = false;            // nvcc will link an executable or a shared library
  bool Informational = false;    // --version, --help, --dryrun, --list-gpu-*: nothing is compiled
  bool DependenciesOnly = false; // -M, -MM: the output is the dependency list
  bool DependenciesWithCompile = false; // -MD, -MMD
  std::string DependencyFile;           // -MF
  std::vector<std::string> ClangArgs;   // -I, -isystem, -include, -D, -U, -std for the parse
  std::string GpuArch;                  // first sm_NN (or compute_NN) named; empty when none
  std::optional<std::string> Problem;   // why the command cannot be wrapped
};

/// Reads nvcc's arguments (without the compiler itself). Options files (--options-file) are read
/// for the parse flags; a CUDA input inside one is a Problem, since it cannot be replaced there.
NvccCommand readNvccCommand(llvm::ArrayRef<std::string> Args);

/// Where nvcc writes the dependency file of a -MD/-MMD compile of Input without -MF: the -o
/// path with its last extension replaced by .d, else <input stem>.d in the working directory.
std::string defaultDependencyFile(const NvccCommand &Command, const NvccInput &Input);

} // namespace cutrace

#endif
