// What each stage of one rewrite run did: status, reason, duration, counts and the diagnostics it
// produced. Filled by the pipeline as it goes; the --explain report (rewriter/report/) reads it.
#ifndef CUTRACE_REWRITER_PIPELINE_RUNLOG_H
#define CUTRACE_REWRITER_PIPELINE_RUNLOG_H

#include "llvm/ADT/StringRef.h"
#include <chrono>
#include <string>
#include <vector>

namespace cutrace {

/// The stages of a run, in order; every mode lists all of them so a report shows what a run
/// skipped or never reached.
namespace stage {
inline constexpr llvm::StringLiteral Collect = "collect annotations", ParseHost = "parse host pass",
                                     ParseDevice = "parse device pass", Check = "check rules",
                                     Plan = "plan edits", Apply = "apply edits", Map = "write map",
                                     Output = "write output", Against = "compare with --against";
} // namespace stage

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

class RunLog {
public:
  /// Stages are listed up front so that a run that stops early still shows what it never reached.
  explicit RunLog(std::vector<std::string> StageNames);

  void start(llvm::StringRef Stage);
  void complete(llvm::StringRef Stage, std::vector<Count> Counts = {},
                std::string Diagnostics = "");
  void fail(llvm::StringRef Stage, std::string Reason, std::string Diagnostics = "",
            std::vector<Count> Counts = {});
  void skip(llvm::StringRef Stage, std::string Reason);
  /// Marks every stage not recorded as skipped because of the first failure (or an early stop).
  void finish();

  const std::vector<StageRecord> &stages() const { return Stages; }
  const StageRecord *stage(llvm::StringRef Name) const;
  bool failed() const;

private:
  StageRecord &record(llvm::StringRef Stage);
  double elapsedMs(llvm::StringRef Stage) const;

  std::vector<StageRecord> Stages;
  std::vector<std::chrono::steady_clock::time_point> Started;
};

} // namespace cutrace

#endif
