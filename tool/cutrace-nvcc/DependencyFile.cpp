#include "DependencyFile.h"

#include <optional>

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

/// The token to write for Name: itself, its original, or nothing (a generated helper file).
std::optional<std::string> replacement(const std::string &Name,
                                       llvm::ArrayRef<GeneratedSource> Sources) {
  for (const GeneratedSource &S : Sources) {
    if (Name == S.Generated)
      return escape(S.Original);
    if (!S.Folder.empty() && llvm::StringRef(Name).starts_with(S.Folder + "/"))
      return std::nullopt;
  }
  return escape(Name);
}

} // namespace

std::string restoreOriginals(llvm::StringRef Text, llvm::ArrayRef<GeneratedSource> Sources) {
  std::string Out;
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
      Out += Token;
      continue;
    }
    if (std::optional<std::string> Kept = replacement(unescape(Token), Sources))
      Out += *Kept;
  }
  return Out;
}

} // namespace cutrace
