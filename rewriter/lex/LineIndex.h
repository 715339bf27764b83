// Where the lines of a buffer begin and end, found by binary search over its newlines, so that
// per-annotation and per-edit lookups cost O(log n) instead of a scan of the line or the file.
#ifndef CUTRACE_REWRITER_LINEINDEX_H
#define CUTRACE_REWRITER_LINEINDEX_H

#include "llvm/ADT/StringRef.h"
#include <algorithm>
#include <vector>

namespace cutrace {

class LineIndex {
public:
  explicit LineIndex(llvm::StringRef Buffer) : Size(static_cast<unsigned>(Buffer.size())) {
    for (size_t I = Buffer.find('\n'); I != llvm::StringRef::npos; I = Buffer.find('\n', I + 1))
      Newlines.push_back(static_cast<unsigned>(I));
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
  std::vector<unsigned> Newlines;
  unsigned Size;
};

} // namespace cutrace

#endif
