#include "pipeline/Rewrite.h"

#include "auto/AutoPlan.h"
#include "lex/Edit.h"
#include "pipeline/Check.h"
#include "pipeline/Emit.h"
#include "pipeline/LineDiff.h"
#include "pipeline/Write.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <set>

namespace cutrace {

llvm::StringRef modeName(RewriteMode Mode) {
  switch (Mode) {
  case RewriteMode::Strip:
    return "strip";
  case RewriteMode::Traced:
    return "traced";
  case RewriteMode::VerifyStrip:
    return "verify-strip";
  }
  return "?";
}

std::vector<std::string> stageNames(const RewriteRequest &Request) {
  std::vector<std::string> Names;
  for (llvm::StringRef S : {stage::Collect, stage::ParseHost, stage::ParseDevice, stage::Check,
                            stage::Plan, stage::Apply, stage::Map, stage::Output})
    Names.push_back(S.str());
  if (Request.Mode == RewriteMode::VerifyStrip && !Request.Against.empty())
    Names.push_back(stage::Against.str());
  return Names;
}

namespace {

/// A usage error found while planning: one line on Shown, the stage failed, exit status 2.
void fail(RewriteResult &R, llvm::StringRef Stage, const std::string &Why,
          llvm::raw_ostream &Shown) {
  Shown << "trace-rewrite: error: " << Why << "\n";
  R.Log.fail(Stage, Why);
  R.Status = UsageOrIo;
}

/// The arches the device passes parse: one per distinct parse of the build's arches. An arch
/// Clang 19 cannot target is parsed as the nearest one it can, and a note says so.
std::vector<std::string> deviceArchs(const compat::ParseOptions &Options,
                                     llvm::raw_ostream &Shown) {
  std::vector<std::string> Archs = compat::distinctParses(
      Options.GpuArchs.empty() ? std::vector<std::string>{Options.GpuArch} : Options.GpuArchs);
  for (const std::string &Arch : Archs) {
    compat::ArchParse P = compat::archParse(Arch);
    if (P.Fallback)
      Shown << "trace-rewrite: note: Clang 19 cannot target " << Arch << "; its device pass parses"
            << " as " << P.ClangArch << " with __CUDA_ARCH__=" << P.ArchValue
            << " and the arch's feature macros (docs/cli.md, \"GPU architectures\")\n";
  }
  return Archs;
}

/// Offsets of the annotations the scan found that no pass saw (every arch's #if skips them).
std::vector<unsigned> unseenAnnotations(const ScanResult &Scan,
                                        llvm::ArrayRef<ParseOutcome> Passes) {
  std::set<unsigned> Seen;
  for (const ParseOutcome &P : Passes)
    for (const AnnotationUse &U : P.Model.Uses)
      Seen.insert(U.MacroOffset);
  std::vector<unsigned> Unseen;
  for (const Annotation &A : Scan.Annotations)
    if (!Seen.count(A.MacroOffset))
      Unseen.push_back(A.MacroOffset);
  return Unseen;
}

void runStrip(RewriteResult &R, const RewriteRequest &Request, llvm::raw_ostream &Shown) {
  const SourceFile &F = R.Input;
  R.Scan = collectAnnotations(F, R.Log);
  for (llvm::StringRef Pass : {stage::ParseHost, stage::ParseDevice})
    R.Log.skip(Pass, "strip is lexical: it works on the raw token stream, without a Clang parse");
  R.Log.skip(stage::Map, "only --traced writes a decode map");
  if (!lexicalRulesHold(F, R.Scan, R.Log, Shown)) {
    R.Status = AnnotationErrors;
    return;
  }
  R.Log.complete(stage::Check, {{"warnings", countLevel(R.Scan.Problems, Severity::Warning)}});
  if (std::optional<std::string> Clash =
          outputClash(F.Path, {Request.Output}, Request.InPlace, "strip in place with -i")) {
    fail(R, stage::Output, *Clash, Shown);
    return;
  }
  StripEmission Stripped = emitStrip(F, R.Scan, R.Log);
  R.AppliedEdits = deletionEdits(Stripped.Deletions);
  R.Pending.push_back({Request.Output, std::move(Stripped.Text)});
}

/// --against: strip(FILE) must equal the plain file byte for byte.
void compareAgainst(RewriteResult &R, const RewriteRequest &Request, llvm::StringRef Stripped,
                    llvm::raw_ostream &Shown) {
  R.Log.start(stage::Against);
  llvm::Expected<SourceFile> Plain = readSource(Request.Against);
  if (!Plain) {
    Shown << "trace-rewrite: error: " << llvm::toString(Plain.takeError()) << "\n";
    R.Log.fail(stage::Against, "cannot read '" + Request.Against + "'");
    R.Status = UsageOrIo;
    return;
  }
  const std::string &Path = R.Input.Path;
  R.AgainstDiff = unifiedDiff(Plain->text(), Stripped, Request.Against, "strip(" + Path + ")");
  if (R.AgainstDiff.empty()) {
    R.Log.complete(stage::Against);
    return;
  }
  R.Log.fail(
      stage::Against, "strip(FILE) differs from " + Request.Against,
      showLine(Path + ": error: strip(" + Path + ") differs from " + Request.Against, Shown) +
          R.AgainstDiff);
  R.Status = AnnotationErrors;
}

/// The rules of the twin alone (recursion through traced code, a group declared two ways on one
/// call path, a jump over a range's end, ...): --verify-strip plans the traced build as --traced
/// would, writing nothing, so the pre-commit check and the build give one verdict. The plain
/// passes are planned as they are unless the code tests CUTRACE_TRACED; then the traced parse is
/// run. Fails the check stage, with the plan's diagnostics, when the plan has errors.
bool twinRulesHold(RewriteResult &R, const RewriteRequest &Request, compat::ParseOptions Options,
                   std::vector<ParseOutcome> &Plain, llvm::raw_ostream &Shown) {
  const SourceFile &F = R.Input;
  RunLog Scratch(stageNames(RewriteRequest{}));
  std::vector<ParseOutcome> Reparsed;
  if (llvm::any_of(Plain, [](const ParseOutcome &P) { return P.TestsTracedMacro; })) {
    Options.Traced = true;
    Reparsed = parsePasses(F, Options, deviceArchs(Options, llvm::nulls()), Scratch);
    if (llvm::any_of(Reparsed, [](const ParseOutcome &P) { return !P.Ran; }))
      return true; // what the traced parse cannot see, the build reports
  }
  TracedOptions Traced;
  Traced.MaxEvents = Request.MaxEvents;
  Traced.Clock = Request.Clock;
  // Header copies are planned beside a name that is never written.
  llvm::SmallString<256> Unwritten(F.Path);
  llvm::sys::fs::make_absolute(Unwritten);
  llvm::sys::path::replace_extension(Unwritten, ".verify.traced.cu");
  TracedPaths Paths = tracedPathsFor(F.Path, Unwritten, "");
  int Status = Ok;
  std::optional<TracedEmission> E = emitTraced(F, R.Scan, Reparsed.empty() ? Plain : Reparsed,
                                               Traced, Paths, Scratch, Shown, Status);
  if (E)
    return true;
  const StageRecord *Failed = Scratch.stage(stage::Plan);
  R.Log.fail(stage::Check, "the traced build's plan breaks a rule",
             Failed ? Failed->Diagnostics : std::string());
  R.Status = Status;
  return false;
}

void runVerify(RewriteResult &R, const RewriteRequest &Request, llvm::raw_ostream &Shown) {
  const SourceFile &F = R.Input;
  R.Scan = collectAnnotations(F, R.Log);
  compat::ParseOptions Options = parseOptionsFor(F.Path, Request.Compile, Shown);
  std::vector<ParseOutcome> Passes = parsePasses(F, Options, deviceArchs(Options, Shown), R.Log);
  Verdict V = checkForVerify(F, R.Scan, Passes, Request.Strict, Request.Verbose, R.Log, Shown);
  R.Status = V.failed() ? AnnotationErrors : Ok;
  if (R.Status == Ok && V.Unchecked.empty())
    twinRulesHold(R, Request, Options, Passes, Shown);
  StripEmission Stripped = emitStrip(F, R.Scan, R.Log);
  R.AppliedEdits = deletionEdits(Stripped.Deletions);
  if (R.Status == Ok && !stripIsIdempotent(Stripped.Text)) {
    R.Log.fail(stage::Apply, "strip is not idempotent on this file",
               showLine(F.Path + ": error: strip is not idempotent on this file", Shown));
    R.Status = AnnotationErrors;
  }
  R.Log.skip(stage::Map, "only --traced writes a decode map");
  R.Log.skip(stage::Output, "--verify-strip writes nothing");
  if (!Request.Against.empty())
    compareAgainst(R, Request, Stripped.Text, Shown);
  if (R.Status == Ok && Request.Strict && !V.Unchecked.empty())
    R.Status = ParseFailure;
}

void runTraced(RewriteResult &R, const RewriteRequest &Request, llvm::raw_ostream &Shown) {
  const SourceFile &F = R.Input;
  R.Scan = collectAnnotations(F, R.Log);
  if (!lexicalRulesHold(F, R.Scan, R.Log, Shown)) {
    R.Status = AnnotationErrors;
    return;
  }
  // The host pass decides launches and registration; one device pass per distinct arch of the
  // build decides the call graph (twins, routes, maps, warnings), and sees every #if branch an
  // arch compiles. The device passes always run: a host pass that saw every annotation may
  // still see other calls (docs/design.md, "The device compilation decides the call graph").
  compat::ParseOptions Options = parseOptionsFor(F.Path, Request.Compile, Shown);
  Options.Traced = true;
  Options.AutoKernels = Request.Auto != AutoRows::None;
  std::vector<ParseOutcome> Passes = parsePasses(F, Options, deviceArchs(Options, Shown), R.Log);
  R.UnseenAnnotations = unseenAnnotations(R.Scan, Passes);
  if (!checkForTraced(F, R.Scan, Passes, Request.Verbose, R.Log, Shown, R.Status))
    return;
  TracedOptions Traced;
  Traced.MaxEvents = Request.MaxEvents;
  Traced.Clock = Request.Clock;
  Traced.Auto = Request.Auto;
  Traced.AutoPlan = {autoKernels, planAutoKernel};
  Traced.AutoKernels = Request.AutoKernels;
  TracedPaths Paths = tracedPathsFor(F.Path, Request.Output, Request.MapPath);
  if (std::optional<std::string> Clash = tracedPathsClash(F.Path, Paths)) {
    fail(R, stage::Plan, *Clash, Shown);
    return;
  }
  std::optional<TracedEmission> E =
      emitTraced(F, R.Scan, Passes, Traced, Paths, R.Log, Shown, R.Status);
  if (!E)
    return;
  R.Model = std::move(E->Model);
  R.Plan = std::move(E->Plan);
  R.AppliedEdits = R.Plan.Edits;
  R.MapCounts = mapCounts(R.Plan.Map);
  R.Pending.push_back({Paths.Map, std::move(E->MapHeader), true});
  R.Pending.push_back({Paths.Json, std::move(E->MapJson), true});
  R.Pending.push_back({Paths.Output, std::move(E->Text)});
  for (HeaderEmission &H : E->Headers) {
    if (!H.MapPath.empty()) {
      R.Pending.push_back({H.MapPath, std::move(H.MapHeader), true});
      R.Pending.push_back({H.JsonPath, std::move(H.MapJson), true});
    }
    R.Pending.push_back({H.Copy, std::move(H.Text), false, H.Original});
  }
}

} // namespace

RewriteResult planRewrite(const SourceFile &Input, const RewriteRequest &Request,
                          llvm::raw_ostream &Shown) {
  RewriteResult R;
  R.Mode = Request.Mode;
  R.Input = Input;
  R.Log = RunLog(stageNames(Request));
  switch (Request.Mode) {
  case RewriteMode::Strip:
    runStrip(R, Request, Shown);
    break;
  case RewriteMode::Traced:
    runTraced(R, Request, Shown);
    break;
  case RewriteMode::VerifyStrip:
    runVerify(R, Request, Shown);
    break;
  }
  return R;
}

namespace {

bool hasMap(const RewriteResult &R) {
  return std::any_of(R.Pending.begin(), R.Pending.end(),
                     [](const PendingOutput &P) { return P.IsMap; });
}

/// Logs the write stages of a successful result once the run's writes are settled: written, or
/// not (the failing output's stage fails, the others say why they were not written).
void logWrites(RewriteResult &R, const std::optional<WriteFailure> &Failure,
               const std::string &WhyNot) {
  if (R.Pending.empty())
    return;
  llvm::StringRef Failing;
  if (Failure)
    for (const PendingOutput &P : R.Pending)
      if (P.Path == Failure->Path)
        Failing = P.IsMap ? stage::Map : stage::Output;
  for (llvm::StringRef Stage : {stage::Map, stage::Output}) {
    if (Stage == stage::Map && !hasMap(R))
      continue;
    if (!Failure)
      R.Log.complete(Stage, Stage == stage::Map ? R.MapCounts : std::vector<Count>{});
    else if (Stage == Failing)
      R.Log.fail(Stage, "cannot write '" + Failure->Path + "'");
    else
      R.Log.skip(Stage, WhyNot);
  }
  if (Failure && !Failure->Path.empty())
    R.Status = UsageOrIo;
}

} // namespace

bool commitRewrites(llvm::MutableArrayRef<RewriteResult> Results, llvm::raw_ostream &Shown) {
  auto Failed = std::find_if(Results.begin(), Results.end(),
                             [](const RewriteResult &R) { return R.Status != Ok; });
  std::optional<WriteFailure> Failure;
  std::string WhyNot;
  if (Failed != Results.end()) {
    Failure = WriteFailure{"", ""};
    WhyNot = "not written: '" + Failed->Input.Path +
             "' failed, and nothing is written unless every file of the run succeeds";
    bool Held = std::any_of(Results.begin(), Results.end(), [](const RewriteResult &R) {
      return R.Status == Ok && !R.Pending.empty();
    });
    if (Held)
      Shown << "trace-rewrite: note: nothing was written: '" << Failed->Input.Path
            << "' failed, and a run writes all of its files or none\n";
  } else {
    std::vector<OutputFile> Files;
    for (const RewriteResult &R : Results)
      for (const PendingOutput &P : R.Pending)
        Files.push_back({P.Path, P.Text});
    Failure = writeOutputs(Files);
    if (Failure) {
      Shown << "trace-rewrite: error: " << Failure->Message << "\n";
      WhyNot = "not written: '" + Failure->Path +
               "' could not be, and nothing is written unless every output can be";
    }
  }
  for (RewriteResult &R : Results) {
    if (R.Status == Ok)
      logWrites(R, Failure, WhyNot);
    R.Log.finish();
  }
  return !Failure;
}

RewriteResult rewriteFile(const SourceFile &Input, const RewriteRequest &Request,
                          llvm::raw_ostream &Shown) {
  RewriteResult R = planRewrite(Input, Request, Shown);
  commitRewrites(R, Shown);
  return R;
}

} // namespace cutrace
