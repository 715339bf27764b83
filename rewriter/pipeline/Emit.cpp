#include "pipeline/Emit.h"

#include "model/HeaderSelection.h"
#include "pipeline/Check.h"
#include "pipeline/Input.h"
#include "pipeline/Status.h"
#include "strip/Strip.h"
#include "strip/Verify.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <cutrace/output_files.h>
#include <deque>
#include <map>

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

} // namespace

std::vector<Count> mapCounts(const DecodeMap &Map) {
  unsigned Sites = 0;
  for (const KernelMapModel &K : Map.Kernels)
    Sites += K.Sites.size();
  return {{"kernels", static_cast<unsigned>(Map.Kernels.size())}, {"sites", Sites}};
}

static std::string absolute(llvm::StringRef Path);

/// What the files written beside the traced output are named after: the output's name without
/// its extension and a `.traced` before it (`k_x.traced.cu` -> `k_x`), so that inputs of one
/// name traced into one folder under different names keep their maps and header copies apart;
/// the input's stem for stdout.
std::string outputStem(llvm::StringRef Input, llvm::StringRef Output) {
  if (Output == "-")
    return llvm::sys::path::stem(Input).str();
  llvm::StringRef Stem = llvm::sys::path::stem(Output);
  if (Stem.ends_with(".traced") && Stem.size() > llvm::StringRef(".traced").size())
    Stem = Stem.drop_back(llvm::StringRef(".traced").size());
  return Stem.str();
}

TracedPaths tracedPathsFor(llvm::StringRef Input, llvm::StringRef Output, llvm::StringRef MapPath) {
  TracedPaths P;
  P.Output = Output.str();
  const std::string Stem = outputStem(Input, Output);
  if (!MapPath.empty()) {
    P.Map = MapPath.str();
  } else {
    llvm::SmallString<256> Dir(Output == "-" ? "." : Output);
    if (Output != "-")
      llvm::sys::path::remove_filename(Dir);
    llvm::sys::path::append(Dir, Stem + ".trace_map.h");
    P.Map = Dir.str().str();
  }
  llvm::SmallString<256> Json(P.Map);
  llvm::sys::path::replace_extension(Json, ".json");
  P.Json = Json.str().str();
  P.Include = includePath(P.Output, P.Map);
  if (Output != "-") {
    llvm::SmallString<256> Dir(Output);
    llvm::sys::path::remove_filename(Dir);
    llvm::sys::path::append(Dir, Stem + ".traced.headers");
    P.HeaderDir = absolute(Dir);
  }
  return P;
}

static std::string absolute(llvm::StringRef Path) {
  llvm::SmallString<256> P(Path);
  llvm::sys::fs::make_absolute(P);
  llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return P.str().str();
}

std::optional<std::string> outputClash(llvm::StringRef Input, llvm::ArrayRef<std::string> Outputs,
                                       bool InPlace, llvm::StringRef Instead) {
  std::vector<std::string> Inputs = {Input.str()};
  std::vector<std::string> Outs(Outputs.begin(), Outputs.end());
  std::optional<OutputClash> Clash = find_output_clash(Inputs, Outs, InPlace);
  if (!Clash)
    return std::nullopt;
  const std::string Out = "'" + Outs[Clash->output] + "'";
  switch (Clash->why) {
  case OutputRefusal::directory:
    return Out + " is a directory; name the output file";
  case OutputRefusal::input:
    return Out + " is the input file; an output never replaces its input (" + Instead.str() + ")";
  case OutputRefusal::twice:
    return Out + " would be written twice by this run (the traced file, the decode map and its "
                 "JSON need three names)";
  case OutputRefusal::dangling_link:
  case OutputRefusal::link_loop:
    return describe_clash(*Clash, Inputs, Outs) + "; name a file, or a link to one";
  }
  return std::nullopt;
}

std::optional<std::string> tracedPathsClash(llvm::StringRef Input, const TracedPaths &Paths) {
  if (std::optional<std::string> Clash =
          outputClash(Input, {Paths.Output, Paths.Map, Paths.Json}, /*InPlace=*/false,
                      "--traced writes new files: name others with -o and --map"))
    return Clash;
  // A header-name has no escapes: these characters cannot be spelled inside #include "...".
  for (unsigned char C : Paths.Include)
    if (C == '"' || C == '\\' || C < 0x20 || C == 0x7F)
      return "the decode map '" + Paths.Map +
             "' cannot be named in an #include \"...\" (its path holds a quote, a backslash or "
             "a control character); choose another path with --map";
  return std::nullopt;
}

namespace {

/// Where the traced copy of Header goes: under Dir, at its path relative to the source's
/// directory (`..` spelled `_parent`), so copies of one project never collide.
std::string copyPath(llvm::StringRef Dir, llvm::StringRef SourceDir, llvm::StringRef Header) {
  llvm::SmallString<256> Out(Dir);
  std::string Relative = spelledFrom(SourceDir, Header);
  for (auto It = llvm::sys::path::begin(Relative), End = llvm::sys::path::end(Relative); It != End;
       ++It)
    llvm::sys::path::append(Out, *It == ".." ? llvm::StringRef("_parent") : *It);
  return Out.str().str();
}

/// Each copy's path as a file in Dir spells it.
std::map<std::string, std::string> spelledCopies(const std::map<std::string, std::string> &Copies,
                                                 llvm::StringRef Dir) {
  std::map<std::string, std::string> Spelled;
  for (auto &[Original, Copy] : Copies)
    Spelled[Original] = spelledFrom(Dir, Copy);
  return Spelled;
}

/// The passes' view of each project header that needs a traced copy, merged per header.
struct HeaderPasses {
  HeaderModel Holds; // what some pass saw in it (no model)
  std::vector<const SourceModel *> Models;
};

std::map<std::string, HeaderPasses> headersOf(llvm::ArrayRef<ParseOutcome> Passes) {
  std::map<std::string, HeaderPasses> Headers;
  for (const ParseOutcome &P : Passes)
    for (const HeaderModel &H : P.Headers) {
      HeaderPasses &Entry = Headers[H.Path];
      Entry.Holds.Annotated |= H.Annotated;
      Entry.Holds.Launches |= H.Launches;
      Entry.Holds.TracedKernels |= H.TracedKernels;
      Entry.Holds.TracedUses |= H.TracedUses;
      Entry.Holds.TracedCallees |= H.TracedCallees;
      Entry.Holds.DeclaresTraced |= H.DeclaresTraced;
      Entry.Holds.System |= H.System;
      Entry.Models.push_back(&H.Model);
    }
  return Headers;
}

/// One line per traced copy, for --explain: which header, of which kind, and why.
std::string copiesNoted(const std::map<std::string, HeaderPasses> &Headers) {
  std::string Out;
  for (auto &[Path, H] : Headers)
    Out += "note: traced copy of " + std::string(H.Holds.System ? "system " : "") + "header '" +
           Path + "': " + copyReason(H.Holds) + "\n";
  return Out;
}

/// A project header about to be planned with the rest of its translation unit.
struct HeaderInput {
  SourceFile File;
  ScanResult Scan;
  SourceModel Model; // its passes merged
  TracedOptions Options;
  HeaderEmission E;
};

/// Reads a header and checks its annotations (the rules of the main file); its options for the
/// traced copy.
std::optional<HeaderInput> readHeader(const std::string &Path, const HeaderPasses &H,
                                      llvm::ArrayRef<ParseOutcome> Passes,
                                      const std::map<std::string, std::string> &Copies,
                                      TracedOptions Options, llvm::raw_ostream &Shown, int &Status) {
  llvm::Expected<SourceFile> Read = readSource(Path);
  if (!Read) {
    Shown << "trace-rewrite: error: " << llvm::toString(Read.takeError()) << "\n";
    Status = UsageOrIo;
    return std::nullopt;
  }
  HeaderInput In{std::move(*Read), {}, mergeSourceModels(H.Models), {}, {}};
  In.Scan = H.Holds.Annotated ? scanAnnotations(In.File.text()) : ScanResult{};
  std::vector<ParseOutcome> Views;
  for (size_t I = 0; I < H.Models.size() && I < Passes.size(); ++I) {
    ParseOutcome View;
    View.Pass = Passes[I].Pass;
    View.Ran = Passes[I].Ran;
    View.Model = *H.Models[I];
    Views.push_back(std::move(View));
  }
  Verdict V = verifyAnnotations(In.Scan, Views);
  if (V.failed()) {
    showProblems(In.File, V.Problems, Shown);
    Status = AnnotationErrors;
    return std::nullopt;
  }
  In.E.Original = Path;
  In.E.Copy = Copies.at(Path);
  Options.ShadowOf = spelledCopies(Copies, llvm::sys::path::parent_path(In.E.Copy));
  llvm::SmallString<256> Stem(llvm::sys::path::stem(In.E.Copy));
  Options.SourceName = llvm::sys::path::filename(Path).str();
  Options.LinePath = Path;
  Options.MapInclude = (Stem + ".trace_map.h").str();
  Options.QuoteIncludesFrom = llvm::sys::path::parent_path(In.E.Copy).str();
  Options.WithRuntime = needsModel(H.Holds);
  In.Options = std::move(Options);
  return In;
}

/// The traced copy of a header from its plan; nothing when the plan has errors.
std::optional<HeaderEmission> emitHeader(HeaderInput &In, TracedPlan Plan, llvm::raw_ostream &Shown,
                                         int &Status) {
  HeaderEmission E = std::move(In.E);
  E.Plan = std::move(Plan);
  showProblems(In.File, E.Plan.Problems, Shown);
  if (hasErrors(E.Plan.Problems)) {
    Status = AnnotationErrors;
    return std::nullopt;
  }
  llvm::Expected<std::string> Text = applyEdits(In.File.text(), E.Plan.Edits);
  if (!Text) {
    Shown << "trace-rewrite: error: " << llvm::toString(Text.takeError()) << "\n";
    Status = UsageOrIo;
    return std::nullopt;
  }
  E.Text = std::move(*Text);
  if (In.Options.WithRuntime) {
    llvm::SmallString<256> Map(E.Copy);
    llvm::sys::path::remove_filename(Map);
    llvm::sys::path::append(Map, In.Options.MapInclude);
    E.MapPath = Map.str().str();
    llvm::sys::path::replace_extension(Map, ".json");
    E.JsonPath = Map.str().str();
    E.MapHeader = renderMapHeader(E.Plan.Map);
    E.MapJson = renderMapJson(E.Plan.Map);
  }
  return E;
}

} // namespace

namespace {

/// The format's limits (docs/FORMAT.md) as errors at the first annotation past each. A site of a
/// helper from another file is located there by its map location.
void addLimitProblems(TracedPlan &Plan, llvm::StringRef SourceName) {
  for (const MapLimitExceeded &L : exceededLimits(Plan.Map)) {
    if (llvm::StringRef(L.Site->Loc).starts_with((SourceName + ":").str()))
      Plan.Problems.push_back({L.Site->Offset, L.Message});
    else
      Plan.Problems.push_back({L.Site->Offset, L.Site->Loc + ": " + L.Message});
  }
}

} // namespace

std::optional<TracedEmission> emitTraced(const SourceFile &F, const ScanResult &Scan,
                                         llvm::ArrayRef<ParseOutcome> Passes, TracedOptions Options,
                                         const TracedPaths &Paths, RunLog &Log,
                                         llvm::raw_ostream &Shown, int &Status) {
  TracedEmission E;
  Options.SourceName = llvm::sys::path::filename(F.Path).str();
  Options.MapInclude = Paths.Include;
  Options.LinePath = F.Path;
  Log.start(stage::Plan);
  E.Model = mergeModels(Passes);
  std::map<std::string, HeaderPasses> Headers = headersOf(Passes);
  if (!Headers.empty() && Paths.HeaderDir.empty()) {
    Shown << "trace-rewrite: error: " << F.Path << " includes project headers that need traced "
          << "copies (" << Headers.begin()->first << "); give the output a file name with -o\n";
    Log.fail(stage::Plan, "traced header copies need an output directory");
    Status = UsageOrIo;
    return std::nullopt;
  }
  std::map<std::string, std::string> Copies; // original -> traced copy, both absolute
  std::string SourceDir = llvm::sys::path::parent_path(absolute(F.Path)).str();
  for (auto &[Path, H] : Headers)
    Copies[Path] = copyPath(Paths.HeaderDir, SourceDir, Path);
  // Every file of the translation unit is planned together: a kernel reaches annotated
  // functions in the others.
  std::deque<HeaderInput> Inputs;
  for (auto &[Path, H] : Headers) {
    std::optional<HeaderInput> In = readHeader(Path, H, Passes, Copies, Options, Shown, Status);
    if (!In) {
      Log.fail(stage::Plan, "the traced copy of '" + Path + "' could not be planned");
      return std::nullopt;
    }
    Inputs.push_back(std::move(*In));
  }
  Options.ShadowOf = spelledCopies(
      Copies, llvm::sys::path::parent_path(absolute(Paths.Output == "-" ? "x" : Paths.Output)));
  std::vector<TracedInput> Unit;
  for (HeaderInput &In : Inputs)
    Unit.push_back({In.File.text(), &In.Scan, &In.Model, In.Options});
  Unit.push_back({F.text(), &Scan, &E.Model, Options});
  std::vector<TracedPlan> Plans = planTracedUnit(Unit);
  for (size_t I = 0; I < Inputs.size(); ++I) {
    std::optional<HeaderEmission> Header = emitHeader(Inputs[I], std::move(Plans[I]), Shown, Status);
    if (!Header) {
      Log.fail(stage::Plan, "the traced copy of '" + Inputs[I].E.Original +
                                "' could not be planned");
      return std::nullopt;
    }
    E.Headers.push_back(std::move(*Header));
  }
  E.Plan = std::move(Plans.back());
  addLimitProblems(E.Plan, Options.SourceName);
  std::string PlanDiagnostics = showProblems(F, E.Plan.Problems, Shown) + copiesNoted(Headers);
  std::vector<Count> Counts = {
      {"kernels", static_cast<unsigned>(E.Plan.KernelSpans.size())},
      {"launch sites", static_cast<unsigned>(E.Plan.EditedLaunches.size())},
      {"edits", static_cast<unsigned>(E.Plan.Edits.size())},
      {"warnings", countLevel(E.Plan.Problems, Severity::Warning)}};
  if (!E.Headers.empty())
    Counts.push_back({"header copies", static_cast<unsigned>(E.Headers.size())});
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
