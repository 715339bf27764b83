#include "report/RunReport.h"

namespace cutrace {

unsigned RunReport::fileAdded() const {
  unsigned N = 0;
  for (const ChangedRegion &R : Changes)
    N += R.Added;
  return N;
}

unsigned RunReport::fileRemoved() const {
  unsigned N = 0;
  for (const ChangedRegion &R : Changes)
    N += R.Removed;
  return N;
}

RunReport reportOf(const RewriteResult &Result) {
  RunReport Report(Result.Input.Path, modeName(Result.Mode).str(), Result.Log);
  if (!Result.AppliedEdits)
    return Report;
  llvm::StringRef Text = Result.Input.text();
  Report.setChanges(describeChanges(Text, *Result.AppliedEdits,
                                    Result.Mode == RewriteMode::Traced
                                        ? tracedRegions(Text, Result.Plan, Result.Model)
                                        : functionRegions(Text, Result.Scan)));
  return Report;
}

} // namespace cutrace
