#include "pipeline/Check.h"

#include "pipeline/DiagnosticPrinter.h"
#include "pipeline/Status.h"
#include <algorithm>
#include <atomic>
#include <set>
#include <thread>

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
  if (!hasErrors(Scan.Problems)) {
    showProblems(F, Scan.Problems, Shown); // warnings (a misspelt annotation), notes
    return true;
  }
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

namespace {

/// The device passes' stage: one pass, or one per arch with counts and diagnostics naming the
/// arch of each; fails at the first pass that could not parse.
void logDevicePasses(const SourceFile &F, llvm::ArrayRef<ParseOutcome> Passes,
                     llvm::ArrayRef<std::string> Archs, RunLog &Log) {
  if (Passes.size() == 1) {
    const ParseOutcome &P = Passes.front();
    if (P.Ran)
      Log.complete(stage::ParseDevice, passCounts(P), diagnosticText(F, P, ""));
    else
      Log.fail(stage::ParseDevice, "could not parse the file: " + P.FailureReason,
               diagnosticText(F, P, ""));
    return;
  }
  std::string Diagnostics;
  std::vector<Count> Counts = {{"arches", static_cast<unsigned>(Archs.size())}};
  for (size_t I = 0; I < Passes.size(); ++I) {
    const ParseOutcome &P = Passes[I];
    Diagnostics += diagnosticText(F, P, "[" + Archs[I] + "] ");
    for (Count &C : passCounts(P))
      Counts.push_back({C.What + " (" + Archs[I] + ")", C.Value});
    if (!P.Ran) {
      Log.fail(stage::ParseDevice, "could not parse the file for " + Archs[I] + ": " +
                                       P.FailureReason,
               std::move(Diagnostics), std::move(Counts));
      return;
    }
  }
  Log.complete(stage::ParseDevice, std::move(Counts), std::move(Diagnostics));
}

} // namespace

std::vector<ParseOutcome> parsePasses(const SourceFile &F, const compat::ParseOptions &Options,
                                      llvm::ArrayRef<std::string> Archs, RunLog &Log) {
  // Each pass is one compiler instance of its own (its file manager, source manager and AST), so
  // they run side by side; the wall time is the slowest pass's, not their sum.
  std::vector<ParseOutcome> Passes(1 + Archs.size());
  auto parse = [&](size_t I) {
    compat::ParseOptions Own = Options;
    if (I > 0)
      Own.GpuArch = Archs[I - 1];
    Passes[I] = parseSource(F.Path, Own, I == 0 ? compat::CudaPass::Host : compat::CudaPass::Device);
    tolerateClangOnlyErrors(F, Passes[I]);
  };
  Log.start(stage::ParseHost);
  Log.start(stage::ParseDevice);
  unsigned Threads = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(),
                                                     static_cast<unsigned>(Passes.size())));
  std::vector<std::thread> Workers;
  std::atomic<size_t> Next{0};
  for (unsigned T = 1; T < Threads; ++T)
    Workers.emplace_back([&] {
      for (size_t I; (I = Next++) < Passes.size();)
        parse(I);
    });
  for (size_t I; (I = Next++) < Passes.size();)
    parse(I);
  for (std::thread &W : Workers)
    W.join();
  const ParseOutcome &Host = Passes.front();
  if (Host.Ran)
    Log.complete(stage::ParseHost, passCounts(Host), diagnosticText(F, Host, ""));
  else
    Log.fail(stage::ParseHost, "could not parse the file: " + Host.FailureReason,
             diagnosticText(F, Host, ""));
  logDevicePasses(F, llvm::ArrayRef<ParseOutcome>(Passes).drop_front(), Archs, Log);
  return Passes;
}

std::string showAcceptedClangErrors(llvm::ArrayRef<ParseOutcome> Passes, bool Verbose,
                                    llvm::raw_ostream &Shown) {
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
                       Verbose ? Shown : llvm::nulls());
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
          "; give the file's compile flags: a compile_commands.json in a folder above the "
          "file, -p <build dir>, --extra-arg=-I<dir>, or the compile command after -- (in a "
          "pre-commit hook: args: [-p, <build dir>])";
  return Text + (Strict ? "" : " (--strict makes this an error)");
}

Verdict checkForVerify(const SourceFile &F, const ScanResult &Scan,
                       llvm::ArrayRef<ParseOutcome> Passes, bool Strict, bool Verbose,
                       RunLog &Log, llvm::raw_ostream &Shown) {
  Log.start(stage::Check);
  Verdict V = verifyAnnotations(Scan, Passes);
  std::string Diagnostics = showProblems(F, V.Problems, Shown);
  if (!V.Unchecked.empty())
    Diagnostics += showLine(F.Path + ": " + (Strict ? "error" : "note") + ": " +
                                uncheckedSummary(V.Unchecked, Strict),
                            Shown);
  Diagnostics += showAcceptedClangErrors(Passes, Verbose, Shown);
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
                    llvm::ArrayRef<ParseOutcome> Passes, bool Verbose, RunLog &Log,
                    llvm::raw_ostream &Shown, int &Status) {
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
    // The scan's own warnings and notes were shown with the lexical rules (lexicalRulesHold).
    std::vector<Problem> NotShown;
    for (const Problem &P : V.Problems)
      if (P.Level == Severity::Error ||
          llvm::none_of(Scan.Problems, [&](const Problem &S) {
            return S.Offset == P.Offset && S.Message == P.Message;
          }))
        NotShown.push_back(P);
    Log.fail(stage::Check, "the annotations break the rules", showProblems(F, NotShown, Shown),
             {{"errors", countLevel(V.Problems, Severity::Error)}});
    Status = AnnotationErrors;
    return false;
  }
  // What was tolerated is said, so that nobody mistakes it for a clean parse.
  std::string Notes = showAcceptedClangErrors(Passes, Verbose, Shown);
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
