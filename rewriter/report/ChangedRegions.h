// Where a run changed the file: the text before and after, cut into regions a person recognises
// (a kernel, a launch site, a function in strip mode, file-scope lines) with a line diff each.
#ifndef CUTRACE_REWRITER_REPORT_CHANGEDREGIONS_H
#define CUTRACE_REWRITER_REPORT_CHANGEDREGIONS_H

#include "lex/AnnotationScanner.h"
#include "model/SourceModel.h"
#include "pipeline/LineDiff.h"
#include "traced/TracedRewrite.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace cutrace {

/// A part of the file whose text the run changes: a kernel, a launch site, a function (strip) or
/// file-scope lines (includes, banner).
struct ChangedRegion {
  enum Kind { Kernel, LaunchSite, Function, FileScope } What = FileScope;
  std::string Name;
  unsigned OldFirstLine = 1, NewFirstLine = 1; // 1-based lines of the region in each file
  std::string Before, After;
  std::vector<DiffLine> Lines; // line numbers are the files' own
  unsigned Added = 0, Removed = 0;
};
llvm::StringRef regionKindName(ChangedRegion::Kind Kind);

/// A region to report, by byte span in the original; widened to whole lines.
struct NamedRegion {
  ChangedRegion::Kind What = ChangedRegion::FileScope;
  std::string Name;
  Span Range;
};

/// Cuts the change Before -> apply(Edits) into regions: each edit belongs to the first named
/// region holding it; edits outside every region become file-scope regions. Regions without edits
/// are left out. Edits must not overlap.
std::vector<ChangedRegion> describeChanges(llvm::StringRef Before, std::vector<Edit> Edits,
                                           const std::vector<NamedRegion> &Regions);

/// Traced mode: each rewritten kernel (signature through closing brace) and each launch site
/// that received an edit.
std::vector<NamedRegion> tracedRegions(llvm::StringRef Buffer, const TracedPlan &Plan,
                                       const SourceModel &Model);

/// Strip mode (no parse): the function around each annotation, found lexically; annotations
/// outside any function are left to file scope.
std::vector<NamedRegion> functionRegions(llvm::StringRef Buffer, const ScanResult &Scan);

/// A unified-diff hunk over ChangedRegion::Lines: [Begin, End) indices.
struct Hunk {
  size_t Begin = 0, End = 0;
  unsigned OldStart = 0, OldCount = 0, NewStart = 0, NewCount = 0;
};
std::vector<Hunk> groupHunks(const std::vector<DiffLine> &Lines, unsigned Context = 3);

} // namespace cutrace

#endif
