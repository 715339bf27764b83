#include "report/ExplainTerminal.h"

#include "lex/StringLiteral.h"

#include "llvm/Support/Format.h"
#include <cstdlib>

namespace cutrace {
namespace {

struct Palette {
  bool On;
  const char *code(const char *C) const { return On ? C : ""; }
  const char *reset() const { return code("\033[0m"); }
  const char *bold() const { return code("\033[1m"); }
  const char *red() const { return code("\033[31m"); }
  const char *green() const { return code("\033[32m"); }
  const char *yellow() const { return code("\033[33m"); }
  const char *cyan() const { return code("\033[36m"); }
  const char *dim() const { return code("\033[2m"); }
};

/// Text from the file as the terminal should show it: an escape sequence or a bell written as
/// \xNN instead of acted on; tabs and line ends kept.
std::string visible(llvm::StringRef Text) { return escapeControls(Text, ShownOn::Terminal); }

const char *statusColor(const Palette &P, StageStatus S) {
  return S == StageStatus::Completed ? P.green() : S == StageStatus::Failed ? P.red() : P.yellow();
}

void renderStage(const StageRecord &S, llvm::raw_ostream &OS, const Palette &P) {
  OS << "  " << statusColor(P, S.Status) << llvm::left_justify(statusName(S.Status), 9) << P.reset()
     << " " << llvm::left_justify(S.Name, 23);
  if (S.Status != StageStatus::Skipped)
    OS << llvm::format("%8.1f ms", S.Millis);
  else
    OS << std::string(11, ' ');
  const char *Sep = "  ";
  for (const Count &C : S.Counts) {
    OS << Sep << C.What << "=" << C.Value;
    Sep = ", ";
  }
  if (!S.Reason.empty())
    OS << (S.Counts.empty() ? "  " : "; ") << visible(S.Reason);
  OS << "\n";
  if (!S.Diagnostics.empty()) {
    llvm::StringRef Rest = S.Diagnostics;
    while (!Rest.empty()) {
      auto [Line, Tail] = Rest.split('\n');
      OS << "      " << P.dim() << visible(Line) << P.reset() << "\n";
      Rest = Tail;
    }
  }
}

void renderRegion(const ChangedRegion &R, llvm::raw_ostream &OS, const Palette &P) {
  OS << P.bold() << regionKindName(R.What) << " " << visible(R.Name) << P.reset() << "  "
     << P.green() << "+" << R.Added << P.reset() << " " << P.red() << "-" << R.Removed << P.reset()
     << "\n";
  for (const Hunk &H : groupHunks(R.Lines, 3)) {
    OS << P.cyan() << "@@ -" << H.OldStart << "," << H.OldCount << " +" << H.NewStart << ","
       << H.NewCount << " @@" << P.reset() << "\n";
    for (size_t K = H.Begin; K < H.End; ++K) {
      const DiffLine &D = R.Lines[K];
      if (D.What == DiffLine::Same)
        OS << " " << visible(D.Text) << "\n";
      else
        OS << (D.What == DiffLine::Added ? P.green() : P.red())
           << (D.What == DiffLine::Added ? '+' : '-') << visible(D.Text) << P.reset() << "\n";
    }
  }
}

} // namespace

bool terminalWantsColor(llvm::raw_ostream &OS) {
  const char *NoColor = std::getenv("NO_COLOR");
  if (NoColor && *NoColor)
    return false;
  return OS.is_displayed();
}

void renderTerminal(const RunReport &Report, llvm::raw_ostream &OS, bool Color) {
  Palette P{Color};
  OS << P.bold() << "trace-rewrite explain: " << visible(Report.file()) << " (" << Report.mode()
     << ")" << P.reset() << "\n";
  for (const StageRecord &S : Report.stages())
    renderStage(S, OS, P);
  if (Report.changes().empty()) {
    OS << "  no changes to show\n";
    return;
  }
  OS << "  changes: " << Report.changes().size() << " region(s), " << P.green() << "+"
     << Report.fileAdded() << P.reset() << " " << P.red() << "-" << Report.fileRemoved()
     << P.reset() << " lines in the file\n";
  for (const ChangedRegion &R : Report.changes()) {
    OS << "\n";
    renderRegion(R, OS, P);
  }
}

} // namespace cutrace
