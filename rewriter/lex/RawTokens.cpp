#include "lex/RawTokens.h"

#include "clang/Basic/LangOptions.h"
#include "clang/Lex/Lexer.h"

namespace cutrace {
namespace {

clang::LangOptions cudaLangOptions() {
  clang::LangOptions Opts;
  Opts.CPlusPlus = Opts.CPlusPlus11 = Opts.CPlusPlus14 = Opts.CPlusPlus17 = 1;
  Opts.CUDA = 1;
  Opts.LineComment = 1;
  Opts.Digraphs = 1;
  Opts.Bool = 1;
  return Opts;
}

/// Length of the backslash-newline splices (spaces allowed before the newline) that start
/// Spelled, when something follows them.
unsigned leadingSplices(llvm::StringRef Spelled) {
  size_t Pos = 0;
  for (;;) {
    if (Pos >= Spelled.size() || Spelled[Pos] != '\\')
      break;
    size_t J = Pos + 1;
    while (J < Spelled.size() && (Spelled[J] == ' ' || Spelled[J] == '\t'))
      ++J;
    if (J >= Spelled.size() || (Spelled[J] != '\n' && Spelled[J] != '\r'))
      break;
    J += (Spelled[J] == '\r' && J + 1 < Spelled.size() && Spelled[J + 1] == '\n') ? 2 : 1;
    if (J >= Spelled.size())
      break;
    Pos = J;
  }
  return static_cast<unsigned>(Pos);
}

} // namespace

std::vector<RawToken> lexAll(llvm::StringRef Buffer) {
  clang::LangOptions Opts = cudaLangOptions();
  const clang::SourceLocation Base = clang::SourceLocation::getFromRawEncoding(1);
  clang::Lexer Lex(Base, Opts, Buffer.begin(), Buffer.begin(), Buffer.end());
  std::vector<RawToken> Tokens;
  std::vector<int> OpenParens;
  bool InDirective = false;
  unsigned Depth = 0;
  clang::Token Tok;
  while (!Lex.LexFromRawLexer(Tok) || Tok.isNot(clang::tok::eof)) {
    if (Tok.is(clang::tok::eof))
      break;
    unsigned Offset = Tok.getLocation().getRawEncoding() - Base.getRawEncoding();
    unsigned Length = Tok.getLength();
    // A token right after a line splice (`x = 1; \` then `TRACE_RECORD(...)` at column 1) is
    // spelled from the backslash: it starts where its first character is.
    unsigned Lead = leadingSplices(Buffer.substr(Offset, Length));
    Offset += Lead;
    Length -= Lead;
    if (Tok.isAtStartOfLine())
      InDirective = Tok.is(clang::tok::hash);
    RawToken T{Tok.getKind(),         Offset, Length, Buffer.substr(Offset, Length), InDirective,
               Tok.isAtStartOfLine(), Depth};
    if (!InDirective) {
      if (T.Kind == clang::tok::l_brace)
        ++Depth;
      else if (T.Kind == clang::tok::r_brace && Depth > 0)
        --Depth;
      else if (T.Kind == clang::tok::l_paren)
        OpenParens.push_back(static_cast<int>(Tokens.size()));
      else if (T.Kind == clang::tok::r_paren && !OpenParens.empty()) {
        T.MatchingOpen = OpenParens.back();
        OpenParens.pop_back();
      }
    }
    Tokens.push_back(T);
  }
  return Tokens;
}

bool isAssignment(clang::tok::TokenKind K) {
  using namespace clang::tok;
  switch (K) {
  case plusplus:
  case minusminus:
  case equal:
  case plusequal:
  case minusequal:
  case starequal:
  case slashequal:
  case percentequal:
  case ampequal:
  case pipeequal:
  case caretequal:
  case lesslessequal:
  case greatergreaterequal:
    return true;
  default:
    return false;
  }
}

std::string withoutLineSplices(llvm::StringRef Spelled) {
  std::string Out;
  for (size_t I = 0; I < Spelled.size(); ++I) {
    size_t J = I + 1;
    while (Spelled[I] == '\\' && J < Spelled.size() && (Spelled[J] == ' ' || Spelled[J] == '\t'))
      ++J;
    if (Spelled[I] == '\\' && J < Spelled.size() && (Spelled[J] == '\n' || Spelled[J] == '\r')) {
      I = J + (Spelled[J] == '\r' && J + 1 < Spelled.size() && Spelled[J + 1] == '\n');
      continue;
    }
    Out += Spelled[I];
  }
  return Out;
}

} // namespace cutrace
