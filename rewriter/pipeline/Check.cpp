#include "pipeline/Check.h"

#include "pipeline/DiagnosticPrinter.h"
#include "pipeline/Status.h"
#include <algorithm>
#include <set>

namespace cutrace {

std::vector<Count> annotationCounts(const ScanResult &Scan) {
  std::vector<Count> Counts;
  for (const AnnotationSpelling &Sp : annotationSpellings()) {
    unsigned N = std::count_if(Scan.Annotations.begin(), Scan.Annotations.end(),
                               [&](const Annotation &A) { return A.Kind == Sp.Kind; });
    if (N)
      Counts.push_back({Sp.Macro.str(), N});
  }
  Counts.push_back({"annotations", static_cast<unsigned>(Scan.Annotations.size())});
  Counts.push_back({"trace.h includes", static_cast<unsigned>(Scan.IncludeDirectives.size())});
  return Counts;
}

unsigned countLevel(const std::vector<Problem> &Problems, Severity Level) {
  return std::count_if(Problems.begin(), Problems.end(),
                       [&](const Problem &P) { return P.Level == Level; });
}

std::string showProblems(const SourceFile &F, const std::vector<Problem> &Problems,
                         llvm::raw_ostream &Shown) {
  std::string Captured;
  llvm::raw_string_ostream Capture(Captured);
  DiagnosticPrinter Printer(F.Path, F.text(), Shown), Recorder(F.Path, F.text(), Capture);
  for (const Problem &P : Problems) {
    Printer.print(P);
    Recorder.print(P);
  }
  return Captured;
}

std::string showLine(const std::string &Line, llvm::raw_ostream &Shown) {
  Shown << Line << "\n";
  return Line + "\n";
}

ScanResult collectAnnotations(const SourceFile &F, RunLog &Log) {
  Log.start(stage::Collect);
  ScanResult Scan = scanAnnotations(F.text());
  Log.complete(stage::Collect, annotationCounts(Scan));
  return Scan;
}

bool lexicalRulesHold(const SourceFile &F, const ScanResult &Scan, RunLog &Log,
                      llvm::raw_ostream &Shown) {
  Log.start(stage::Check);
  if (!hasErrors(Scan.Problems))
    return true;
  Log.fail(stage::Check,
           std::to_string(countLevel(Scan.Problems, Severity::Error)) + " rule violation(s)",
           showProblems(F, Scan.Problems, Shown));
  return false;
}

namespace {

constexpr llvm::StringLiteral AcceptedMark = " [nvcc accepts this: ";

/// Errors Clang 19 reports on code nvcc accepts become warnings that say so (compat/CudaCompat.h),
/// so no check counts them; the text before each on its line tells which they are.
void tolerateClangOnlyErrors(const SourceFile &F, ParseOutcome &P) {
  for (ClangDiagnostic &D : P.Diagnostics) {
    if (D.Level != Severity::Error)
      continue;
    llvm::StringRef Before;
    if (D.InMainFile && D.Offset <= F.text().size()) {
      llvm::StringRef Head = F.text().take_front(D.Offset);
      Before = Head.substr(Head.find_last_of('\n') + 1);
    }
    if (std::optional<std::string> Why = compat::clangOnlyReason(D.Message, Before)) {
      D.Level = Severity::Warning;
      D.Message += AcceptedMark.str() + *Why + "]";
    }
  }
}

std::string diagnosticText(const SourceFile &F, const ParseOutcome &P, llvm::StringRef Prefix) {
  std::string Text;
  for (const ClangDiagnostic &D : P.Diagnostics)
    if (D.Level != Severity::Note)
      Text += (D.Location.empty() ? F.Path : D.Location) +
              (D.Level == Severity::Error ? ": error: " : ": warning: ") + Prefix.str() +
              D.Message + "\n";
  return Text;
}

std::vector<Count> passCounts(const ParseOutcome &P) {
  return {{"kernels", static_cast<unsigned>(P.Model.Kernels.size())},
          {"launch sites", static_cast<unsigned>(P.Model.Launches.size())},
          {"annotations seen", static_cast<unsigned>(P.Model.Uses.size())},
          {"clang errors", P.errorCount()}};
}

} // namespace

ParseOutcome parsePass(const SourceFile &F, const compat::ParseOptions &Options,
                       compat::CudaPass Pass, RunLog &Log) {
  llvm::StringRef Stage = Pass == compat::CudaPass::Host ? stage::ParseHost : stage::ParseDevice;
  Log.start(Stage);
  ParseOutcome P = parseSource(F.Path, Options, Pass);
  tolerateClangOnlyErrors(F, P);
  std::string Diagnostics = diagnosticText(F, P, "");
  if (P.Ran)
    Log.complete(Stage, passCounts(P), std::move(Diagnostics));
  else
    Log.fail(Stage, "could not parse the file: " + P.FailureReason, std::move(Diagnostics));
  return P;
}

std::vector<ParseOutcome> parseDevicePasses(const SourceFile &F, compat::ParseOptions Options,
                                            llvm::ArrayRef<std::string> Archs, RunLog &Log) {
  if (Archs.size() == 1) {
    Options.GpuArch = Archs.front();
    return {parsePass(F, Options, compat::CudaPass::Device, Log)};
  }
  // One stage for all arches: its counts and diagnostics name the arch of each.
  Log.start(stage::ParseDevice);
  std::vector<ParseOutcome> Passes;
  std::string Diagnostics;
  std::vector<Count> Counts = {{"arches", static_cast<unsigned>(Archs.size())}};
  for (const std::string &Arch : Archs) {
    Options.GpuArch = Arch;
    ParseOutcome P = parseSource(F.Path, Options, compat::CudaPass::Device);
    tolerateClangOnlyErrors(F, P);
    Diagnostics += diagnosticText(F, P, "[" + Arch + "] ");
    for (Count &C : passCounts(P))
      Counts.push_back({C.What + " (" + Arch + ")", C.Value});
    bool Ran = P.Ran;
    std::string Reason = P.FailureReason;
    Passes.push_back(std::move(P));
    if (!Ran) {
      Log.fail(stage::ParseDevice, "could not parse the file for " + Arch + ": " + Reason,
               std::move(Diagnostics), std::move(Counts));
      return Passes;
    }
  }
  Log.complete(stage::ParseDevice, std::move(Counts), std::move(Diagnostics));
  return Passes;
}

std::string showAcceptedClangErrors(llvm::ArrayRef<ParseOutcome> Passes, llvm::raw_ostream &Shown) {
  std::set<std::string> Seen;
  std::string Text;
  for (const ParseOutcome &P : Passes)
    for (const ClangDiagnostic &D : P.Diagnostics) {
      size_t Mark = D.Message.find(AcceptedMark.str());
      if (D.Level != Severity::Warning || Mark == std::string::npos ||
          !Seen.insert(D.Location + D.Message).second)
        continue;
      std::string Why = D.Message.substr(Mark + AcceptedMark.size());
      Why.pop_back(); // the closing ']'
      Text += showLine(D.Location + ": note: Clang 19 rejects this and nvcc accepts it (" + Why +
                           "), so the rewrite goes on: " + D.Message.substr(0, Mark),
                       Shown);
    }
  return Text;
}

/// One plain statement of what a --verify-strip run could not check, and how to fix that.
static std::string uncheckedSummary(const std::vector<Verdict::UnparsedPass> &Unchecked,
                                    bool Strict) {
  bool Both = Unchecked.size() == 2;
  bool SameReason = Both && Unchecked[0].Reason == Unchecked[1].Reason;
  std::string Text = std::string(Both ? "only the lexical rules were checked: "
                                      : "the rules were checked in one pass only: ");
  if (SameReason) {
    Text += "neither Clang pass could parse the file (" + Unchecked[0].Reason + ")";
  } else {
    for (size_t I = 0; I < Unchecked.size(); ++I)
      Text += (I ? "; the " : "the ") + Unchecked[I].Pass + " pass could not parse the file (" +
              Unchecked[I].Reason + ")";
  }
  Text += ", so host/device placement and side effects of calls were not checked" +
          std::string(Both ? "" : " in that pass") +
          "; give the file's compile flags with -p, --extra-arg or after --";
  return Text + (Strict ? "" : " (--strict makes this an error)");
}

Verdict checkForVerify(const SourceFile &F, const ScanResult &Scan,
                       llvm::ArrayRef<ParseOutcome> Passes, bool Strict, RunLog &Log,
                       llvm::raw_ostream &Shown) {
  Log.start(stage::Check);
  Verdict V = verifyAnnotations(Scan, Passes);
  std::string Diagnostics = showProblems(F, V.Problems, Shown);
  if (!V.Unchecked.empty())
    Diagnostics += showLine(F.Path + ": " + (Strict ? "error" : "note") + ": " +
                                uncheckedSummary(V.Unchecked, Strict),
                            Shown);
  Diagnostics += showAcceptedClangErrors(Passes, Shown);
  if (V.IgnoredClangErrors)
    Diagnostics += showLine(F.Path + ": note: " + std::to_string(V.IgnoredClangErrors) +
                                " Clang error(s) outside annotated functions were ignored",
                            Shown);
  for (const std::string &Foreign : V.ForeignErrors)
    Diagnostics += Foreign + "\n";
  std::vector<Count> Counts = {{"errors", countLevel(V.Problems, Severity::Error)},
                               {"warnings", countLevel(V.Problems, Severity::Warning)},
                               {"unchecked", static_cast<unsigned>(V.Unchecked.size())}};
  if (V.failed())
    Log.fail(stage::Check, "the annotations break the rules", std::move(Diagnostics),
             std::move(Counts));
  else
    Log.complete(stage::Check, std::move(Counts), std::move(Diagnostics));
  return V;
}

/// A header the parse cannot find is almost always a missing include directory.
static std::string missingHeaderHint(llvm::StringRef Reason) {
  if (!Reason.contains("file not found"))
    return "";
  return "; give the file's include directories: -p <build dir> (its compile_commands.json) or "
         "the compile command after `--` (-- -I<dir> -D<macro>)";
}

bool checkForTraced(const SourceFile &F, const ScanResult &Scan,
                    llvm::ArrayRef<ParseOutcome> Passes, RunLog &Log, llvm::raw_ostream &Shown,
                    int &Status) {
  for (const ParseOutcome &P : Passes)
    if (!P.Ran) {
      llvm::StringRef Stage =
          P.Pass == compat::CudaPass::Host ? stage::ParseHost : stage::ParseDevice;
      Log.fail(Stage, Log.stage(Stage)->Reason,
               showLine(F.Path + ": error: cannot rewrite: the " + compat::passName(P.Pass).str() +
                            " pass could not parse the file (" + P.FailureReason + ")" +
                            missingHeaderHint(P.FailureReason),
                        Shown) +
                   Log.stage(Stage)->Diagnostics);
      Status = ParseFailure;
      return false;
    }
  Log.start(stage::Check);
  Verdict V = verifyAnnotations(Scan, Passes);
  if (V.failed()) {
    Log.fail(stage::Check, "the annotations break the rules", showProblems(F, V.Problems, Shown),
             {{"errors", countLevel(V.Problems, Severity::Error)}});
    Status = AnnotationErrors;
    return false;
  }
  // What was tolerated is said, so that nobody mistakes it for a clean parse.
  std::string Notes = showAcceptedClangErrors(Passes, Shown);
  if (V.IgnoredClangErrors)
    Notes += showLine(F.Path + ": note: " + std::to_string(V.IgnoredClangErrors) +
                          " Clang error(s) outside annotated functions were ignored (code nvcc "
                          "compiles and Clang 19 does not; --explain lists them)",
                      Shown);
  Log.complete(stage::Check,
               {{"errors", 0}, {"warnings", countLevel(V.Problems, Severity::Warning)}},
               std::move(Notes));
  return true;
}

} // namespace cutrace
