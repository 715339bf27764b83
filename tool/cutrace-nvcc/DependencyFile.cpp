#include "DependencyFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <optional>
#include <set>

namespace cutrace {

namespace {

/// Make escapes a space in a file name as "\ ".
std::string unescape(llvm::StringRef Token) {
  std::string Name;
  for (size_t I = 0; I < Token.size(); ++I) {
    if (Token[I] == '\\' && I + 1 < Token.size() && Token[I + 1] == ' ')
      ++I;
    Name += Token[I];
  }
  return Name;
}

std::string escape(llvm::StringRef Name) {
  std::string Token;
  for (char Ch : Name) {
    if (Ch == ' ')
      Token += '\\';
    Token += Ch;
  }
  return Token;
}

/// Name as one spelling per file: absolute, without `.` and `..`.
std::string canonical(llvm::StringRef Name) {
  llvm::SmallString<256> Path(Name);
  llvm::sys::fs::make_absolute(Path);
  llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
  return Path.str().str();
}

/// The file to name for Name: itself, its original, or nothing (a generated helper file).
/// Originals first: a header copy lies under its source's generated folder.
std::optional<std::string> replacement(const std::string &Name,
                                       llvm::ArrayRef<GeneratedSource> Sources) {
  const std::string Canonical = canonical(Name);
  for (const GeneratedSource &S : Sources)
    if (Name == S.Generated || Canonical == canonical(S.Generated))
      return S.Original;
  for (const GeneratedSource &S : Sources)
    if (!S.Folder.empty() && llvm::StringRef(Name).starts_with(S.Folder + "/"))
      return std::nullopt;
  return Name;
}

} // namespace

std::string restoreOriginals(llvm::StringRef Text, llvm::ArrayRef<GeneratedSource> Sources) {
  std::string Out;
  std::set<std::string> Named; // the files the current rule names
  size_t I = 0;
  while (I < Text.size()) {
    char Ch = Text[I];
    if (Ch == ' ' || Ch == '\t' || Ch == '\n' || Ch == '\r') {
      Out += Ch;
      ++I;
      continue;
    }
    // A token runs to the next unescaped blank; "\" before a newline continues the line.
    size_t End = I;
    while (End < Text.size() && !llvm::StringRef(" \t\r\n").contains(Text[End]))
      End += (Text[End] == '\\' && End + 1 < Text.size() && Text[End + 1] == ' ') ? 2 : 1;
    llvm::StringRef Token = Text.slice(I, End);
    I = End;
    if (Token == "\\" || Token.ends_with(":")) {
      if (Token != "\\")
        Named.clear(); // a new rule
      Out += Token;
      continue;
    }
    // nvcc names a copy's original too (through its #line directives): once is enough.
    std::optional<std::string> Kept = replacement(unescape(Token), Sources);
    if (Kept && Named.insert(canonical(*Kept)).second)
      Out += escape(*Kept);
  }
  return Out;
}

} // namespace cutrace
