#include "pipeline/Rewrite.h"

#include "Edit.h"
#include "LineDiff.h"
#include "pipeline/Check.h"
#include "pipeline/Emit.h"
#include "pipeline/Write.h"

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

/// Writes the outputs and logs the stages they belong to; an error line on Shown when it fails.
bool commit(llvm::ArrayRef<OutputFile> Files, RunLog &Log, llvm::raw_ostream &Shown,
            llvm::StringRef MapPath = "", std::vector<Count> MapCounts = {}) {
  if (!MapPath.empty())
    Log.start(stage::Map);
  Log.start(stage::Output);
  std::optional<WriteFailure> Failure = writeOutputs(Files);
  if (!Failure) {
    if (!MapPath.empty())
      Log.complete(stage::Map, std::move(MapCounts));
    Log.complete(stage::Output);
    return true;
  }
  Shown << "trace-rewrite: error: " << Failure->Message << "\n";
  bool MapFailed = !MapPath.empty() && Failure->Path != Files.back().Path;
  Log.fail(MapFailed ? stage::Map : stage::Output, "cannot write '" + Failure->Path + "'");
  if (!MapFailed && !MapPath.empty())
    Log.skip(stage::Map, "not written: nothing is written when an output cannot be");
  return false;
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
  StripEmission Stripped = emitStrip(F, R.Scan, R.Log);
  R.AppliedEdits = deletionEdits(Stripped.Deletions);
  if (!commit({{Request.Output, Stripped.Text}}, R.Log, Shown))
    R.Status = UsageOrIo;
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
  R.Log.fail(stage::Against, "strip(FILE) differs from " + Request.Against,
             showLine(Path + ": error: strip(" + Path + ") differs from " + Request.Against,
                      Shown) +
                 R.AgainstDiff);
  R.Status = AnnotationErrors;
}

void runVerify(RewriteResult &R, const RewriteRequest &Request, llvm::raw_ostream &Shown) {
  const SourceFile &F = R.Input;
  R.Scan = collectAnnotations(F, R.Log);
  compat::ParseOptions Options = parseOptionsFor(F.Path, Request.Compile, Shown);
  std::vector<ParseOutcome> Passes = {parsePass(F, Options, compat::CudaPass::Host, R.Log),
                                      parsePass(F, Options, compat::CudaPass::Device, R.Log)};
  Verdict V = checkForVerify(F, R.Scan, Passes, Request.Strict, R.Log, Shown);
  R.Status = V.failed() ? AnnotationErrors : Ok;
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
  // One parse when the host pass saw every annotation: the device pass could add nothing.
  compat::ParseOptions Options = parseOptionsFor(F.Path, Request.Compile, Shown);
  std::vector<ParseOutcome> Passes = {parsePass(F, Options, compat::CudaPass::Host, R.Log)};
  if (needsDevicePass(R.Scan, Passes.front()))
    Passes.push_back(parsePass(F, Options, compat::CudaPass::Device, R.Log));
  else
    R.Log.skip(stage::ParseDevice, "the host pass saw every annotation; the device pass could "
                                   "add nothing");
  if (!checkForTraced(F, R.Scan, Passes, R.Log, Shown, R.Status))
    return;
  TracedOptions Traced;
  Traced.MaxEvents = Request.MaxEvents;
  Traced.Clock = Request.Clock;
  TracedPaths Paths = tracedPathsFor(F.Path, Request.Output, Request.MapPath);
  std::optional<TracedEmission> E =
      emitTraced(F, R.Scan, Passes, Traced, Paths, R.Log, Shown, R.Status);
  if (!E)
    return;
  R.Model = std::move(E->Model);
  R.Plan = std::move(E->Plan);
  R.AppliedEdits = R.Plan.Edits;
  if (!commit({{Paths.Map, E->MapHeader}, {Paths.Json, E->MapJson}, {Paths.Output, E->Text}},
              R.Log, Shown, Paths.Map, mapCounts(R.Plan.Map)))
    R.Status = UsageOrIo;
}

} // namespace

RewriteResult rewriteFile(const SourceFile &Input, const RewriteRequest &Request,
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
  R.Log.finish();
  return R;
}

} // namespace cutrace
