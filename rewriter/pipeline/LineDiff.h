// Line-based unified diff, for --against mismatches and rewrite reports.
#ifndef CUTRACE_REWRITER_LINEDIFF_H
#define CUTRACE_REWRITER_LINEDIFF_H

#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace cutrace {

struct DiffLine {
  enum Kind { Same, Removed, Added } What;
  std::string Text; // without its line terminator
  unsigned OldLine; // 1-based; 0 for Added
  unsigned NewLine; // 1-based; 0 for Removed
};

/// The edit script turning Old into New, line by line: a longest common subsequence while the
/// inputs differ in at most 2000 lines after their common ends, else a valid but not minimal
/// script. Linear time and memory in the input size.
std::vector<DiffLine> diffLines(llvm::StringRef Old, llvm::StringRef New);

/// Unified diff text (`---`/`+++` headers, `@@` hunks, Context lines around changes); empty when
/// the inputs are equal.
std::string unifiedDiff(llvm::StringRef Old, llvm::StringRef New, llvm::StringRef OldName,
                        llvm::StringRef NewName, unsigned Context = 3);

} // namespace cutrace

#endif
