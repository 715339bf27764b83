// Names, lanes and flow ends are read as C++ reads their literals (docs/annotations.md), and what
// the decode map cannot hold is an error, never an abort or a silent change.
#include "lex/StringLiteral.h"

#include <gtest/gtest.h>

using namespace cutrace;

namespace {

std::string decoded(llvm::StringRef Spelled) {
  llvm::Expected<std::string> V = decodeStringLiteral(Spelled);
  return V ? *V : "error: " + llvm::toString(V.takeError());
}

TEST(NameLiterals, EscapesDecodeAsInCpp) {
  EXPECT_EQ(decoded(R"("\x41\101\n\t\\\"\?")"), "AA\n\t\\\"?");
  EXPECT_EQ(decoded(R"("\u00e9\U0001F600")"), "\xC3\xA9\xF0\x9F\x98\x80");
}

TEST(NameLiterals, RawU8AndConcatenatedLiterals) {
  EXPECT_EQ(decoded(R"cpp(R"(a"b)")cpp"), "a\"b");
  EXPECT_EQ(decoded(R"cpp(R"x(a)"b)x")cpp"), "a)\"b");
  EXPECT_EQ(decoded(R"cpp(u8"l" /* c */ "m" // d
                     "n")cpp"),
            "lmn");
}

TEST(NameLiterals, WhatTheMapCannotHoldIsAnError) {
  EXPECT_EQ(decoded(R"("a\0b")"), "error: string contains a NUL character");
  EXPECT_EQ(decoded("\"caf\xe9\""), "error: string is not valid UTF-8 (save the file as UTF-8)");
  EXPECT_EQ(decoded(R"(L"w")"), "error: wide and UTF-16/UTF-32 string literals are not allowed; "
                                "use a plain or u8 literal");
  EXPECT_EQ(decoded(R"("\q")"), "error: unknown escape '\\q' in string literal");
  EXPECT_EQ(decoded(R"("\x100")"), "error: invalid \\x escape in string literal");
  EXPECT_EQ(decoded(R"("\uD800")"), "error: \\u escape names no character");
}

TEST(NameLiterals, GeneratedTextEscapesEverythingThatCouldEndIt) {
  EXPECT_EQ(escapeForCpp("a\"b\\c\n1"), "a\\\"b\\\\c\\0121");
}

TEST(Escaping, CommentLineTextStaysOnItsLine) {
  EXPECT_EQ(escapeControls("nl\n#error x", ShownOn::CommentLine), "nl\\x0a#error x");
  EXPECT_EQ(escapeControls("tab\tcr\r", ShownOn::CommentLine), "tab\\x09cr\\x0d");
  // A trailing backslash would splice the next line into the comment.
  EXPECT_EQ(escapeControls("dir\\", ShownOn::CommentLine), "dir\\\\");
}

TEST(Escaping, TerminalTextKeepsItsLinesButActsOnNothing) {
  EXPECT_EQ(escapeControls("a\tb\r\n\033[31mred\a\x7f", ShownOn::Terminal),
            "a\tb\r\n\\x1b[31mred\\x07\\x7f");
  EXPECT_EQ(escapeControls("C:\\dir", ShownOn::Terminal), "C:\\dir");
}

} // namespace
