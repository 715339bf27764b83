#include "pipeline/RunLog.h"

#include <algorithm>

namespace cutrace {

llvm::StringRef statusName(StageStatus Status) {
  switch (Status) {
  case StageStatus::Completed:
    return "completed";
  case StageStatus::Failed:
    return "failed";
  case StageStatus::Skipped:
    return "skipped";
  }
  return "?";
}

RunLog::RunLog(std::vector<std::string> StageNames) {
  for (std::string &N : StageNames)
    Stages.push_back(StageRecord{std::move(N)});
  Started.resize(Stages.size());
}

StageRecord &RunLog::record(llvm::StringRef Stage) {
  for (StageRecord &S : Stages)
    if (S.Name == Stage)
      return S;
  // A stage the caller did not list up front: recorded after the others rather than lost.
  Stages.push_back(StageRecord{Stage.str()});
  Started.emplace_back();
  return Stages.back();
}

double RunLog::elapsedMs(llvm::StringRef Stage) const {
  for (size_t I = 0; I < Stages.size(); ++I)
    if (Stages[I].Name == Stage && Started[I] != std::chrono::steady_clock::time_point())
      return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                       Started[I])
          .count();
  return 0;
}

void RunLog::start(llvm::StringRef Stage) {
  record(Stage);
  for (size_t I = 0; I < Stages.size(); ++I)
    if (Stages[I].Name == Stage)
      Started[I] = std::chrono::steady_clock::now();
}

void RunLog::complete(llvm::StringRef Stage, std::vector<Count> Counts, std::string Diagnostics) {
  StageRecord &S = record(Stage);
  S.Millis = elapsedMs(Stage);
  S.Status = StageStatus::Completed;
  S.Counts = std::move(Counts);
  S.Diagnostics = std::move(Diagnostics);
  S.Recorded = true;
}

void RunLog::fail(llvm::StringRef Stage, std::string Reason, std::string Diagnostics,
                  std::vector<Count> Counts) {
  StageRecord &S = record(Stage);
  S.Millis = elapsedMs(Stage);
  S.Status = StageStatus::Failed;
  S.Reason = std::move(Reason);
  S.Counts = std::move(Counts);
  S.Diagnostics = std::move(Diagnostics);
  S.Recorded = true;
}

void RunLog::skip(llvm::StringRef Stage, std::string Reason) {
  StageRecord &S = record(Stage);
  S.Status = StageStatus::Skipped;
  S.Reason = std::move(Reason);
  S.Recorded = true;
}

void RunLog::finish() {
  std::string FirstFailure;
  for (const StageRecord &S : Stages)
    if (S.Recorded && S.Status == StageStatus::Failed) {
      FirstFailure = S.Name;
      break;
    }
  for (StageRecord &S : Stages)
    if (!S.Recorded) {
      S.Status = StageStatus::Skipped;
      S.Reason = FirstFailure.empty() ? "not reached: the run stopped earlier"
                                      : "not reached: stage '" + FirstFailure + "' failed";
      S.Recorded = true;
    }
}

const StageRecord *RunLog::stage(llvm::StringRef Name) const {
  for (const StageRecord &S : Stages)
    if (S.Name == Name)
      return &S;
  return nullptr;
}

bool RunLog::failed() const {
  return std::any_of(Stages.begin(), Stages.end(),
                     [](const StageRecord &S) { return S.Status == StageStatus::Failed; });
}

} // namespace cutrace
