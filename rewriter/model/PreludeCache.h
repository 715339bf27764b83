// The prelude cache: every parse of a CUDA file starts with the same toolchain headers (Clang's
// CUDA wrapper, the CUDA runtime, libcu++), about 0.2 s of each pass. Their parse is kept as a
// precompiled header per distinct command, so a later parse of any file with that command reads
// it instead (docs/cli.md, "The parse cache"). This file keeps the folder, the names and the
// checks; model/SourceParse.cpp builds and loads the headers.
#ifndef CUTRACE_REWRITER_MODEL_PRELUDECACHE_H
#define CUTRACE_REWRITER_MODEL_PRELUDECACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cutrace::prelude {

/// The empty file a prelude is the parse of: every -include of the command, nothing else.
inline constexpr llvm::StringLiteral PreludeFile = "/__cutrace__/prelude.cu";

/// The cache folder: $CUTRACE_CACHE_DIR, else $XDG_CACHE_HOME/cutrace, else ~/.cache/cutrace,
/// each with /prelude appended; "" when CUTRACE_PARSE_CACHE=0 or no folder can be named.
std::string cacheDir();

/// Headers a cache folder keeps (about 6 MB each), the least recently used going first:
/// CUTRACE_PARSE_CACHE when it is a number above 0, else DefaultEntries.
inline constexpr unsigned DefaultEntries = 64;
unsigned maxEntries();

/// A file a prelude read, as it was then.
struct InputStamp {
  std::string Path;
  int64_t ModTime = 0; // seconds
  uint64_t Size = 0;
};

/// What a prelude's parse depended on: the files it read, and every name it looked up in the
/// include path (#include, #include_next, __has_include), found or not.
struct Reads {
  std::vector<InputStamp> Files;
  std::vector<std::string> Names;
};

/// A prelude's place in the cache, named by a digest of the parse command (the file and the
/// user's include folders left out), Clang's version, the tool's own build and the headers the
/// tool embeds.
struct Entry {
  std::string Pch;    // the precompiled header
  std::string Inputs; // what it read (Reads), a line each
  std::string Failed; // written instead when the prelude did not compile
};
Entry entryFor(llvm::StringRef Dir, llvm::ArrayRef<std::string> Command);

enum class State { Usable, Failed, Missing, Shadowed };
/// Usable: the header and its list exist and every file listed is as it was (its time of use is
/// renewed); Shadowed: as Usable, but one of UserDirs (the command's include folders, searched
/// before the toolchain's) holds a name the prelude looked up, so a parse would read that file
/// instead; Failed: the prelude did not compile from these very files; Missing: build it.
State lookup(const Entry &E, llvm::ArrayRef<std::string> UserDirs);

/// After a parse that could not read the header: removes it, and keeps its list of what it read
/// as the failure's when KeepAsFailed (lookup then says Failed while those files are unchanged).
void discard(const Entry &E, bool KeepAsFailed);

/// After a build: records what the header read (or that it failed), atomically, then trims the
/// folder to its maxEntries() headers used last. False when the folder cannot be written.
bool record(const Entry &E, const Reads &Read, bool Built);

} // namespace cutrace::prelude

#endif
