// Make-style dependency lists (what nvcc -M/-MD writes) with the generated sources the wrapper
// compiled put back to the user's own files, so make and Ninja track the originals.
#ifndef CUTRACE_TOOL_DEPENDENCY_FILE_H
#define CUTRACE_TOOL_DEPENDENCY_FILE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace cutrace {

struct GeneratedSource {
  std::string Generated; // the path nvcc was given, or a traced header copy it included
  std::string Original;  // the path the user's command named, or the header the copy stands for
  std::string Folder;    // every other file under it was generated too, and is dropped
};

/// Text with each generated file replaced by its original (the same path spelled another way
/// counts: `a/./b` is `a/b`) and every other file under a generated folder left out; a file a
/// rule already names is not named again. Everything else (targets, spacing, line
/// continuations) as it was.
std::string restoreOriginals(llvm::StringRef Text, llvm::ArrayRef<GeneratedSource> Sources);

} // namespace cutrace

#endif
