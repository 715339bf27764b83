// Make-style dependency lists (what nvcc -M/-MD writes) with the generated sources the wrapper
// compiled put back to the user's own files, so make and Ninja track the originals.
#ifndef CUTRACE_TOOL_DEPENDENCY_FILE_H
#define CUTRACE_TOOL_DEPENDENCY_FILE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace cutrace {

struct GeneratedSource {
  std::string Generated; // the path nvcc was given
  std::string Original;  // the path the user's command named
  std::string Folder;    // every other file under it was generated too, and is dropped
};

/// Text with each generated source replaced by its original and every other file under a
/// generated folder left out; everything else (targets, spacing, line continuations) as it was.
std::string restoreOriginals(llvm::StringRef Text, llvm::ArrayRef<GeneratedSource> Sources);

} // namespace cutrace

#endif
