#include "lex/StringLiteral.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include <cctype>

namespace cutrace {
namespace {

llvm::Error literalError(const llvm::Twine &Why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Why);
}

bool isOctal(char C) { return C >= '0' && C <= '7'; }

void appendUtf8(uint32_t Code, std::string &Out) {
  char Buf[4];
  char *P = Buf;
  if (llvm::ConvertCodePointToUTF8(Code, P))
    Out.append(Buf, P);
}

/// Decodes the escape at S[I] (just past the backslash); I ends past the escape.
llvm::Error decodeEscape(llvm::StringRef S, size_t &I, std::string &Out) {
  if (I >= S.size())
    return literalError("string literal ends inside an escape");
  char C = S[I++];
  // Simple escapes, as pairs: the letter, then the character it stands for.
  static constexpr char Simple[] = "n\nt\tr\ra\ab\bf\fv\v\\\\''\"\"??";
  for (size_t K = 0; K + 1 < sizeof(Simple); K += 2)
    if (Simple[K] == C) {
      Out += Simple[K + 1];
      return llvm::Error::success();
    }
  switch (C) {
  case 'x': {
    unsigned Value = 0, Digits = 0;
    while (I < S.size() && std::isxdigit(static_cast<unsigned char>(S[I])) && Digits < 8) {
      Value = Value * 16 + llvm::hexDigitValue(S[I++]);
      ++Digits;
    }
    if (!Digits || Value > 0xFF)
      return literalError("invalid \\x escape in string literal");
    Out += static_cast<char>(Value);
    return llvm::Error::success();
  }
  case 'u':
  case 'U': {
    unsigned Want = C == 'u' ? 4 : 8, Value = 0;
    for (unsigned K = 0; K < Want; ++K, ++I) {
      if (I >= S.size() || !std::isxdigit(static_cast<unsigned char>(S[I])))
        return literalError("invalid \\" + std::string(1, C) + " escape in string literal");
      Value = Value * 16 + llvm::hexDigitValue(S[I]);
    }
    if (Value > 0x10FFFF || (Value >= 0xD800 && Value <= 0xDFFF))
      return literalError("\\u escape names no character");
    appendUtf8(Value, Out);
    return llvm::Error::success();
  }
  default:
    if (!isOctal(C))
      return literalError("unknown escape '\\" + std::string(1, C) + "' in string literal");
    unsigned Value = C - '0';
    for (unsigned K = 1; K < 3 && I < S.size() && isOctal(S[I]); ++K)
      Value = Value * 8 + (S[I++] - '0');
    if (Value > 0xFF)
      return literalError("octal escape out of range in string literal");
    Out += static_cast<char>(Value);
    return llvm::Error::success();
  }
}

/// One literal starting at S[I] (at its prefix or quote); I ends past its closing quote.
llvm::Error decodeOne(llvm::StringRef S, size_t &I, std::string &Out) {
  llvm::StringRef Rest = S.substr(I);
  if (Rest.starts_with("u8"))
    I += 2;
  else if (Rest.starts_with("L") || Rest.starts_with("u") || Rest.starts_with("U"))
    return literalError("wide and UTF-16/UTF-32 string literals are not allowed; use a plain "
                        "or u8 literal");
  if (I < S.size() && S[I] == 'R') {
    size_t Open = S.find('(', I);
    if (Open == llvm::StringRef::npos || S[I + 1] != '"')
      return literalError("malformed raw string literal");
    std::string Close = ")" + S.slice(I + 2, Open).str() + "\"";
    size_t End = S.find(Close, Open + 1);
    if (End == llvm::StringRef::npos)
      return literalError("unterminated raw string literal");
    Out += S.slice(Open + 1, End).str();
    I = End + Close.size();
    return llvm::Error::success();
  }
  if (I >= S.size() || S[I] != '"')
    return literalError("expected a string literal");
  for (++I; I < S.size() && S[I] != '"';) {
    if (S[I] == '\\') {
      ++I;
      if (llvm::Error E = decodeEscape(S, I, Out))
        return E;
    } else {
      Out += S[I++];
    }
  }
  if (I >= S.size())
    return literalError("unterminated string literal");
  ++I;
  return llvm::Error::success();
}

/// Skips whitespace and comments between adjacent literals.
void skipSpace(llvm::StringRef S, size_t &I) {
  while (I < S.size()) {
    if (std::isspace(static_cast<unsigned char>(S[I]))) {
      ++I;
    } else if (S.substr(I).starts_with("//")) {
      size_t NL = S.find('\n', I);
      I = NL == llvm::StringRef::npos ? S.size() : NL + 1;
    } else if (S.substr(I).starts_with("/*")) {
      size_t End = S.find("*/", I + 2);
      I = End == llvm::StringRef::npos ? S.size() : End + 2;
    } else if (S.substr(I).starts_with("\\\n")) {
      I += 2;
    } else {
      return;
    }
  }
}

} // namespace

llvm::Expected<std::string> decodeStringLiteral(llvm::StringRef Spelled) {
  std::string Out;
  size_t I = 0;
  skipSpace(Spelled, I);
  do {
    if (llvm::Error E = decodeOne(Spelled, I, Out))
      return std::move(E);
    skipSpace(Spelled, I);
  } while (I < Spelled.size());
  if (Out.find('\0') != std::string::npos)
    return literalError("string contains a NUL character");
  const auto *Begin = reinterpret_cast<const llvm::UTF8 *>(Out.data());
  if (!llvm::isLegalUTF8String(&Begin, Begin + Out.size()))
    return literalError("string is not valid UTF-8 (save the file as UTF-8)");
  return Out;
}

std::string escapeForCpp(llvm::StringRef Text) {
  std::string Out;
  for (unsigned char C : Text) {
    if (C == '"' || C == '\\') {
      Out += '\\';
      Out += C;
    } else if (C < 0x20 || C == 0x7F) {
      // Octal, not \x: a following hex digit cannot extend it.
      Out += '\\';
      Out += static_cast<char>('0' + (C >> 6));
      Out += static_cast<char>('0' + ((C >> 3) & 7));
      Out += static_cast<char>('0' + (C & 7));
    } else {
      Out += C;
    }
  }
  return Out;
}

std::string escapeControls(llvm::StringRef Text, ShownOn Where) {
  const bool OneLine = Where == ShownOn::CommentLine;
  std::string Out;
  Out.reserve(Text.size());
  for (unsigned char C : Text) {
    const bool Layout = C == '\t' || C == '\n' || C == '\r';
    if (C == '\\' && OneLine) {
      Out += "\\\\";
    } else if ((C < 0x20 && (OneLine || !Layout)) || C == 0x7F) {
      static const char Hex[] = "0123456789abcdef";
      Out += "\\x";
      Out += Hex[C >> 4];
      Out += Hex[C & 15];
    } else {
      Out += static_cast<char>(C);
    }
  }
  return Out;
}

} // namespace cutrace
