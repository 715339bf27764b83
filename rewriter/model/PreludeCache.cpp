#include "model/PreludeCache.h"

#include "compat/EmbeddedHeaders.h"

#include "clang/Basic/Version.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <utime.h>

namespace cutrace::prelude {
namespace fs = llvm::sys::fs;

namespace {

/// Bump when what a prelude holds changes without the tool's binary changing.
constexpr llvm::StringLiteral Format = "cutrace-prelude-2";

std::string env(const char *Name) {
  const char *V = std::getenv(Name);
  return V ? V : "";
}

/// The running tool's size and time of change: a rebuilt tool builds its own preludes, since
/// what a prelude holds (the bodies it skips) is the tool's decision.
std::string toolIdentity() {
  fs::file_status S;
  if (fs::status("/proc/self/exe", S))
    return "";
  return std::to_string(S.getSize()) + ":" +
         std::to_string(llvm::sys::toTimeT(S.getLastModificationTime()));
}

std::optional<InputStamp> stampOf(llvm::StringRef Path) {
  fs::file_status S;
  if (fs::status(Path, S) || !fs::is_regular_file(S))
    return std::nullopt;
  auto Time = static_cast<int64_t>(llvm::sys::toTimeT(S.getLastModificationTime()));
  return InputStamp{Path.str(), Time, S.getSize()};
}

/// The list of what a prelude read, when every file in it is still as it was.
std::optional<Reads> unchanged(llvm::StringRef ListPath) {
  auto List = llvm::MemoryBuffer::getFile(ListPath);
  if (!List)
    return std::nullopt;
  llvm::SmallVector<llvm::StringRef, 512> Lines;
  (*List)->getBuffer().split(Lines, '\n', -1, false);
  if (Lines.empty() || Lines.front() != Format)
    return std::nullopt;
  Reads Read;
  for (llvm::StringRef Line : llvm::ArrayRef(Lines).drop_front()) {
    if (Line.consume_front("n ")) {
      Read.Names.push_back(Line.str());
      continue;
    }
    if (!Line.consume_front("f "))
      return std::nullopt;
    auto [Time, Rest] = Line.split(' ');
    auto [Size, Path] = Rest.split(' ');
    int64_t T = 0;
    uint64_t N = 0;
    if (Time.getAsInteger(10, T) || Size.getAsInteger(10, N) || Path.empty())
      return std::nullopt;
    std::optional<InputStamp> Now = stampOf(Path);
    if (!Now || Now->ModTime != T || Now->Size != N)
      return std::nullopt;
    Read.Files.push_back(std::move(*Now));
  }
  return Read;
}

/// Writes Text to Path through a file beside it, so a reader sees all of it or none.
bool writeAtomically(llvm::StringRef Path, llvm::StringRef Text) {
  llvm::SmallString<256> Temp;
  int FD = -1;
  if (fs::createUniqueFile(Path + "-%%%%%%", FD, Temp))
    return false;
  {
    llvm::raw_fd_ostream Out(FD, /*shouldClose=*/true);
    Out << Text;
    Out.close();
    if (Out.has_error()) {
      Out.clear_error();
      fs::remove(Temp);
      return false;
    }
  }
  if (fs::rename(Temp, Path)) {
    fs::remove(Temp);
    return false;
  }
  return true;
}

/// Keeps the maxEntries() headers used last, and removes what an interrupted build left behind
/// more than an hour ago and the failures recorded more than a month ago (tried again then).
void trim(llvm::StringRef Dir) {
  struct Found {
    std::string Path;
    int64_t Time;
  };
  std::vector<Found> Headers;
  auto Now = std::chrono::system_clock::now();
  std::error_code EC;
  for (fs::directory_iterator It(Dir, EC), End; !EC && It != End; It.increment(EC)) {
    fs::file_status S;
    if (fs::status(It->path(), S))
      continue;
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    auto Time = S.getLastModificationTime();
    bool Leftover = Name.contains(".pch-") || Name.contains(".inputs-") ||
                    Name.contains(".failed-");
    if (Name.ends_with(".pch"))
      Headers.push_back({It->path(), static_cast<int64_t>(llvm::sys::toTimeT(Time))});
    else if ((Leftover && Now - Time > std::chrono::hours(1)) ||
             (Name.ends_with(".failed") && Now - Time > std::chrono::hours(24 * 30)))
      fs::remove(It->path());
  }
  const unsigned Keep = maxEntries();
  if (Headers.size() <= Keep)
    return;
  std::sort(Headers.begin(), Headers.end(),
            [](const Found &A, const Found &B) { return A.Time > B.Time; });
  for (const Found &F : llvm::ArrayRef(Headers).drop_front(Keep)) {
    fs::remove(F.Path);
    fs::remove(llvm::StringRef(F.Path).drop_back(4) + ".inputs");
  }
}

} // namespace

std::string cacheDir() {
  if (env("CUTRACE_PARSE_CACHE") == "0")
    return "";
  llvm::SmallString<256> Dir(env("CUTRACE_CACHE_DIR"));
  if (Dir.empty()) {
    Dir = env("XDG_CACHE_HOME");
    if (Dir.empty()) {
      std::string Home = env("HOME");
      if (Home.empty())
        return "";
      Dir = Home;
      llvm::sys::path::append(Dir, ".cache");
    }
    llvm::sys::path::append(Dir, "cutrace");
  }
  llvm::sys::path::append(Dir, "prelude");
  return std::string(Dir);
}

unsigned maxEntries() {
  unsigned N = 0;
  return llvm::StringRef(env("CUTRACE_PARSE_CACHE")).getAsInteger(10, N) || N == 0 ? DefaultEntries
                                                                                   : N;
}

Entry entryFor(llvm::StringRef Dir, llvm::ArrayRef<std::string> Command) {
  llvm::SHA256 Hash;
  auto Add = [&](llvm::StringRef Text) {
    Hash.update(Text);
    Hash.update(llvm::StringRef("\0", 1));
  };
  Add(Format);
  Add(clang::getClangFullVersion());
  Add(toolIdentity());
  Add(compat::EmbeddedIntrinsicsHeader);
  for (const std::string &Arg : Command)
    Add(Arg);
  std::string Key = llvm::toHex(Hash.final(), /*LowerCase=*/true).substr(0, 32);
  llvm::SmallString<256> Base(Dir);
  llvm::sys::path::append(Base, Key);
  std::string B(Base);
  return {B + ".pch", B + ".inputs", B + ".failed"};
}

State lookup(const Entry &E, llvm::ArrayRef<std::string> UserDirs) {
  if (std::optional<Reads> Read = fs::exists(E.Pch) ? unchanged(E.Inputs) : std::nullopt) {
    for (const std::string &Dir : UserDirs)
      for (const std::string &Name : Read->Names) {
        llvm::SmallString<256> Path(Dir);
        llvm::sys::path::append(Path, Name);
        if (fs::exists(Path))
          return State::Shadowed;
      }
    ::utime(E.Pch.c_str(), nullptr); // now: the folder keeps the headers last used
    return State::Usable;
  }
  if (unchanged(E.Failed))
    return State::Failed;
  return State::Missing;
}

void discard(const Entry &E, bool KeepAsFailed) {
  fs::remove(E.Pch);
  if (!KeepAsFailed || fs::rename(E.Inputs, E.Failed))
    fs::remove(E.Inputs);
}

bool record(const Entry &E, const Reads &Read, bool Built) {
  std::string Text = Format.str() + "\n";
  for (const InputStamp &I : Read.Files)
    Text += "f " + std::to_string(I.ModTime) + " " + std::to_string(I.Size) + " " + I.Path + "\n";
  for (const std::string &Name : Read.Names)
    Text += "n " + Name + "\n";
  if (!writeAtomically(Built ? E.Inputs : E.Failed, Text))
    return false;
  if (Built)
    trim(llvm::sys::path::parent_path(E.Pch));
  return true;
}

} // namespace cutrace::prelude
