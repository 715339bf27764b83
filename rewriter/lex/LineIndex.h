// Where the lines of a buffer begin and end, found by binary search over its newlines, so that
// per-annotation and per-edit lookups cost O(log n) instead of a scan of the line or the file;
// and how the compiler numbers them when the buffer holds #line directives of its own.
#ifndef CUTRACE_REWRITER_LINEINDEX_H
#define CUTRACE_REWRITER_LINEINDEX_H

#include "llvm/ADT/StringRef.h"
#include <algorithm>
#include <string>
#include <vector>

namespace cutrace {

class LineIndex {
public:
  explicit LineIndex(llvm::StringRef Buffer) : Size(static_cast<unsigned>(Buffer.size())) {
    for (size_t I = Buffer.find('\n'); I != llvm::StringRef::npos; I = Buffer.find('\n', I + 1))
      Newlines.push_back(static_cast<unsigned>(I));
    findLineDirectives(Buffer);
  }

  /// The #line directive that makes the lines from physical line Line on read as the compiler
  /// reads them in the source: `#line <Line> <DefaultFile>` unless a #line directive (or a GNU
  /// line marker `# N "file"`) of the buffer's own renumbered them, in which case its numbering
  /// and file. Text the rewrite inserts or moves is followed by one of these, so that __LINE__,
  /// __FILE__, assert() and the compiler's messages in the code after it are what they were.
  std::string lineDirective(unsigned Line, llvm::StringRef DefaultFile) const {
    auto After = std::upper_bound(
        Directives.begin(), Directives.end(), Line,
        [](unsigned L, const UserLineDirective &D) { return L <= D.PhysicalLine; });
    if (After == Directives.begin())
      return "#line " + std::to_string(Line) + " " + DefaultFile.str();
    const UserLineDirective &D = *(After - 1);
    std::string File = DefaultFile.str();
    for (auto It = After; It != Directives.begin(); --It)
      if (!(It - 1)->File.empty()) {
        File = (It - 1)->File;
        break;
      }
    return "#line " + std::to_string(D.Number + (Line - D.PhysicalLine - 1)) + " " + File;
  }

  /// Number of '\n' before Offset.
  unsigned newlinesBefore(unsigned Offset) const {
    return std::lower_bound(Newlines.begin(), Newlines.end(), Offset) - Newlines.begin();
  }
  /// 1-based line of Offset.
  unsigned line(unsigned Offset) const { return 1 + newlinesBefore(Offset); }
  /// Offset of the first byte of the line holding Offset.
  unsigned lineStart(unsigned Offset) const {
    unsigned Before = newlinesBefore(Offset);
    return Before ? Newlines[Before - 1] + 1 : 0;
  }
  /// 1-based column of Offset.
  unsigned column(unsigned Offset) const { return Offset - lineStart(Offset) + 1; }
  /// Offset of the '\n' ending the line that holds Offset, or the buffer size.
  unsigned lineEnd(unsigned Offset) const {
    auto It = std::lower_bound(Newlines.begin(), Newlines.end(), Offset);
    return It == Newlines.end() ? Size : *It;
  }
  /// Number of '\n' in [Begin, End).
  unsigned newlinesIn(unsigned Begin, unsigned End) const {
    return newlinesBefore(End) - newlinesBefore(Begin);
  }

private:
  struct UserLineDirective {
    unsigned PhysicalLine; // the directive's own line: the next one is numbered Number
    unsigned Number;
    std::string File; // as spelled, quotes included; empty when the directive names none
  };

  /// `#line N ["file"]` and `# N "file" flags` at the start of a line. Read lexically: a
  /// directive inside a block comment or a disabled #if branch is taken as written.
  void findLineDirectives(llvm::StringRef Buffer) {
    for (size_t L = 0; L <= Newlines.size(); ++L) {
      size_t I = L ? Newlines[L - 1] + 1 : 0;
      auto Blanks = [&] {
        while (I < Buffer.size() && (Buffer[I] == ' ' || Buffer[I] == '\t'))
          ++I;
      };
      Blanks();
      if (I >= Buffer.size() || Buffer[I] != '#')
        continue;
      ++I;
      Blanks();
      if (Buffer.substr(I).starts_with("line") && I + 4 < Buffer.size() &&
          (Buffer[I + 4] == ' ' || Buffer[I + 4] == '\t')) {
        I += 4;
        Blanks();
      }
      size_t Digits = I;
      while (I < Buffer.size() && Buffer[I] >= '0' && Buffer[I] <= '9')
        ++I;
      if (I == Digits || I - Digits > 9 || (I < Buffer.size() && !isBlankOrEnd(Buffer[I])))
        continue;
      UserLineDirective D{static_cast<unsigned>(L + 1),
                          static_cast<unsigned>(std::stoul(Buffer.substr(Digits, I - Digits).str())),
                          ""};
      Blanks();
      if (I < Buffer.size() && Buffer[I] == '"') {
        size_t Close = I + 1;
        while (Close < Buffer.size() && Buffer[Close] != '"' && Buffer[Close] != '\n')
          Close += Buffer[Close] == '\\' ? 2 : 1;
        if (Close < Buffer.size() && Buffer[Close] == '"')
          D.File = Buffer.substr(I, Close + 1 - I).str();
      }
      Directives.push_back(std::move(D));
    }
  }
  static bool isBlankOrEnd(char C) { return C == ' ' || C == '\t' || C == '\r' || C == '\n'; }

  std::vector<unsigned> Newlines;
  std::vector<UserLineDirective> Directives; // by PhysicalLine
  unsigned Size;
};

} // namespace cutrace

#endif
