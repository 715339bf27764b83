#include "pipeline/Emit.h"

#include "Strip.h"
#include "pipeline/Check.h"
#include "pipeline/Status.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <algorithm>

namespace cutrace {

StripEmission emitStrip(const SourceFile &F, const ScanResult &Scan, RunLog &Log) {
  StripEmission E;
  Log.start(stage::Plan);
  E.Deletions = planStripDeletions(F.text(), strippedStatements(Scan));
  Log.complete(stage::Plan, {{"deletions", static_cast<unsigned>(E.Deletions.size())}});
  Log.start(stage::Apply);
  E.Text = applyDeletions(F.text(), E.Deletions);
  Log.complete(stage::Apply,
               {{"bytes removed", static_cast<unsigned>(F.text().size() - E.Text.size())}});
  return E;
}

bool stripIsIdempotent(llvm::StringRef Stripped) {
  ScanResult Again = scanAnnotations(Stripped);
  return Again.Annotations.empty() && stripAnnotations(Stripped, Again) == Stripped;
}

namespace {

/// `#include "..."` text that reaches Map from the directory of Out.
std::string includePath(llvm::StringRef Out, llvm::StringRef Map) {
  llvm::SmallString<256> OutDir(Out == "-" ? "." : Out);
  if (Out != "-")
    llvm::sys::path::remove_filename(OutDir);
  llvm::sys::fs::make_absolute(OutDir);
  llvm::SmallString<256> MapAbs(Map);
  llvm::sys::fs::make_absolute(MapAbs);
  llvm::StringRef Dir = OutDir.str().rtrim('/');
  if (llvm::StringRef(MapAbs).starts_with(Dir.str() + "/"))
    return MapAbs.substr(Dir.size() + 1).str();
  return MapAbs.str().str();
}

unsigned editedLaunchSites(const TracedPlan &Plan, const SourceModel &Model) {
  llvm::DenseSet<unsigned> Insertions; // a set, so many launches and edits stay linear
  for (const Edit &E : Plan.Edits)
    if (E.Range.Begin == E.Range.End)
      Insertions.insert(E.Range.Begin);
  return std::count_if(Model.Launches.begin(), Model.Launches.end(), [&](const LaunchSite &L) {
    return L.Kernel >= 0 && Insertions.contains(L.ArgsEnd);
  });
}

} // namespace

std::vector<Count> mapCounts(const DecodeMap &Map) {
  unsigned Sites = 0;
  for (const KernelMapModel &K : Map.Kernels)
    Sites += K.Sites.size();
  return {{"kernels", static_cast<unsigned>(Map.Kernels.size())}, {"sites", Sites}};
}

TracedPaths tracedPathsFor(llvm::StringRef Input, llvm::StringRef Output,
                           llvm::StringRef MapPath) {
  TracedPaths P;
  P.Output = Output.str();
  if (!MapPath.empty()) {
    P.Map = MapPath.str();
  } else {
    llvm::SmallString<256> Dir(Output == "-" ? "." : Output);
    if (Output != "-")
      llvm::sys::path::remove_filename(Dir);
    llvm::sys::path::append(Dir, llvm::sys::path::stem(Input) + ".trace_map.h");
    P.Map = Dir.str().str();
  }
  llvm::SmallString<256> Json(P.Map);
  llvm::sys::path::replace_extension(Json, ".json");
  P.Json = Json.str().str();
  return P;
}

std::optional<TracedEmission> emitTraced(const SourceFile &F, const ScanResult &Scan,
                                         llvm::ArrayRef<ParseOutcome> Passes,
                                         TracedOptions Options, const TracedPaths &Paths,
                                         RunLog &Log, llvm::raw_ostream &Shown, int &Status) {
  TracedEmission E;
  Options.SourceName = llvm::sys::path::filename(F.Path).str();
  Options.MapInclude = includePath(Paths.Output, Paths.Map);
  Log.start(stage::Plan);
  E.Model = mergeModels(Passes);
  E.Plan = planTraced(F.text(), Scan, E.Model, Options);
  std::string PlanDiagnostics = showProblems(F, E.Plan.Problems, Shown);
  std::vector<Count> Counts = {
      {"kernels", static_cast<unsigned>(E.Plan.KernelSpans.size())},
      {"launch sites", editedLaunchSites(E.Plan, E.Model)},
      {"edits", static_cast<unsigned>(E.Plan.Edits.size())},
      {"warnings", countLevel(E.Plan.Problems, Severity::Warning)}};
  if (hasErrors(E.Plan.Problems)) {
    Log.fail(stage::Plan, "the plan has errors", std::move(PlanDiagnostics), std::move(Counts));
    Status = AnnotationErrors;
    return std::nullopt;
  }
  Log.complete(stage::Plan, std::move(Counts), std::move(PlanDiagnostics));
  Log.start(stage::Apply);
  llvm::Expected<std::string> Text = applyEdits(F.text(), E.Plan.Edits);
  if (!Text) {
    std::string Why = llvm::toString(Text.takeError());
    Shown << "trace-rewrite: error: " << Why << "\n";
    Log.fail(stage::Apply, Why);
    Status = UsageOrIo;
    return std::nullopt;
  }
  E.Text = std::move(*Text);
  Log.complete(stage::Apply, {{"bytes in", static_cast<unsigned>(F.text().size())},
                              {"bytes out", static_cast<unsigned>(E.Text.size())}});
  E.MapHeader = renderMapHeader(E.Plan.Map);
  E.MapJson = renderMapJson(E.Plan.Map);
  return E;
}

} // namespace cutrace
