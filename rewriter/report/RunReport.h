// The rewrite report: the run log of one trace-rewrite run (what each stage did), and per kernel
// (or per function, in strip mode) the text before and after. Rendered by ExplainTerminal and
// ExplainHtml; docs/explain.md describes what it shows.
#ifndef CUTRACE_REWRITER_REPORT_RUNREPORT_H
#define CUTRACE_REWRITER_REPORT_RUNREPORT_H

#include "pipeline/Rewrite.h"
#include "pipeline/RunLog.h"
#include "report/ChangedRegions.h"
#include <string>
#include <vector>

namespace cutrace {

class RunReport : public RunLog {
public:
  RunReport(std::string File, std::string Mode, std::vector<std::string> StageNames)
      : RunLog(std::move(StageNames)), File(std::move(File)), Mode(std::move(Mode)) {}
  RunReport(std::string File, std::string Mode, RunLog Log)
      : RunLog(std::move(Log)), File(std::move(File)), Mode(std::move(Mode)) {}

  void setChanges(std::vector<ChangedRegion> Regions) { Changes = std::move(Regions); }

  const std::string &file() const { return File; }
  const std::string &mode() const { return Mode; }
  const std::vector<ChangedRegion> &changes() const { return Changes; }
  /// Whole-file line counts: every edit lies in exactly one region.
  unsigned fileAdded() const;
  unsigned fileRemoved() const;

private:
  std::string File, Mode;
  std::vector<ChangedRegion> Changes;
};

/// The report of a finished pipeline run: its log, and the changes cut into regions.
RunReport reportOf(const RewriteResult &Result);

} // namespace cutrace

#endif
