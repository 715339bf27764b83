// The rewrite report (SPEC §6): what each stage of one trace-rewrite run did, and per kernel (or
// per function, in strip mode) the text before and after. Filled by the CLI as it goes; rendered
// by ExplainTerminal and ExplainHtml.
#ifndef CUTRACE_REWRITER_RUNREPORT_H
#define CUTRACE_REWRITER_RUNREPORT_H

#include "AnnotationScanner.h"
#include "LineDiff.h"
#include "SourceModel.h"
#include "TracedRewrite.h"
#include "llvm/ADT/StringRef.h"
#include <chrono>
#include <string>
#include <vector>

namespace cutrace {

enum class StageStatus { Completed, Failed, Skipped };
llvm::StringRef statusName(StageStatus Status);

struct Count {
  std::string What;
  unsigned Value = 0;
};

struct StageRecord {
  std::string Name;
  StageStatus Status = StageStatus::Skipped;
  std::string Reason; // why it was skipped, or what failed, in one line
  double Millis = 0;
  std::vector<Count> Counts;
  std::string Diagnostics; // as the compiler-style printer wrote them, no colour
  bool Recorded = false;
};

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

/// Strip deletions as edits, for describeChanges.
std::vector<Edit> deletionEdits(const std::vector<Span> &Deletions);

/// A unified-diff hunk over ChangedRegion::Lines: [Begin, End) indices.
struct Hunk {
  size_t Begin = 0, End = 0;
  unsigned OldStart = 0, OldCount = 0, NewStart = 0, NewCount = 0;
};
std::vector<Hunk> groupHunks(const std::vector<DiffLine> &Lines, unsigned Context = 3);

class RunReport {
public:
  /// Stages are listed up front so that a run that stops early still shows what it never reached.
  RunReport(std::string File, std::string Mode, std::vector<std::string> StageNames);

  void start(llvm::StringRef Stage);
  void complete(llvm::StringRef Stage, std::vector<Count> Counts = {},
                std::string Diagnostics = "");
  void fail(llvm::StringRef Stage, std::string Reason, std::string Diagnostics = "",
            std::vector<Count> Counts = {});
  void skip(llvm::StringRef Stage, std::string Reason);
  /// Marks every stage not recorded as skipped because of the first failure (or an early stop).
  void finish();

  void setChanges(std::vector<ChangedRegion> Regions) { Changes = std::move(Regions); }

  const std::string &file() const { return File; }
  const std::string &mode() const { return Mode; }
  const std::vector<StageRecord> &stages() const { return Stages; }
  const std::vector<ChangedRegion> &changes() const { return Changes; }
  const StageRecord *stage(llvm::StringRef Name) const;
  bool failed() const;
  /// Whole-file line counts: every edit lies in exactly one region.
  unsigned fileAdded() const;
  unsigned fileRemoved() const;

private:
  StageRecord &record(llvm::StringRef Stage);
  double elapsedMs(llvm::StringRef Stage) const;

  std::string File, Mode;
  std::vector<StageRecord> Stages;
  std::vector<std::chrono::steady_clock::time_point> Started;
  std::vector<ChangedRegion> Changes;
};

/// Counts of annotations per kind ("TRACE_RANGE": 2, ...), kinds that occur only.
std::vector<Count> annotationCounts(const ScanResult &Scan);

} // namespace cutrace

#endif
