// trace-rewrite: strip cutrace annotations, verify they can be stripped exactly, or expand them
// into recording code. Argument parsing, exit codes and file output only; the work is in
// rewriter/.
#include "AnnotationScanner.h"
#include "DiagnosticPrinter.h"
#include "ExplainHtml.h"
#include "ExplainTerminal.h"
#include "LineDiff.h"
#include "RunReport.h"
#include "SourceModel.h"
#include "Strip.h"
#include "TracedRewrite.h"
#include "Verify.h"
#include "compat/CudaCompat.h"

#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace cutrace;
namespace cl = llvm::cl;

namespace {

enum ExitCode { Ok = 0, AnnotationErrors = 1, UsageOrIo = 2, ParseFailure = 3 };

cl::OptionCategory Category("trace-rewrite options");
cl::list<std::string> Files(cl::Positional, cl::desc("<file.cu>..."), cl::cat(Category));
cl::opt<std::string> Output("o",
                            cl::desc("Write the result to <file> ('-' = stdout, the default "
                                     "for one file)"),
                            cl::value_desc("file"), cl::cat(Category));
cl::opt<bool> InPlace("i", cl::desc("Rewrite the files in place"), cl::cat(Category));
cl::opt<std::string> BuildPath("p", cl::desc("Build directory holding compile_commands.json"),
                               cl::value_desc("dir"), cl::cat(Category));
cl::list<std::string> ExtraArgs("extra-arg", cl::desc("Extra argument for the Clang parse"),
                                cl::cat(Category));
cl::opt<std::string> CudaPath("cuda-path", cl::desc("CUDA installation"),
                              cl::init("/usr/local/cuda"), cl::cat(Category));
cl::opt<std::string> GpuArch("cuda-gpu-arch", cl::desc("GPU architecture for the device pass"),
                             cl::init("sm_90"), cl::cat(Category));
enum class Mode { Strip, Traced, VerifyStrip };
cl::opt<Mode>
    RunMode(cl::desc("Mode:"),
            cl::values(clEnumValN(Mode::Strip, "strip", "Delete every annotation (default)"),
                       clEnumValN(Mode::Traced, "traced", "Expand annotations into recording code"),
                       clEnumValN(Mode::VerifyStrip, "verify-strip",
                                  "Check the files obey every annotation rule and strip exactly")),
            cl::init(Mode::Strip), cl::cat(Category));
cl::opt<std::string> Against("against",
                             cl::desc("With --verify-strip: require strip(FILE) to "
                                      "equal this file byte for byte"),
                             cl::value_desc("plain.cu"), cl::cat(Category));
cl::opt<bool> Strict("strict",
                     cl::desc("With --verify-strip: fail (exit 3) when a Clang pass "
                              "cannot parse the file, instead of running only the "
                              "lexical checks"),
                     cl::cat(Category));
cl::opt<std::string> MapPath("map",
                             cl::desc("With --traced: decode-map header to write "
                                      "(default: <input stem>.trace_map.h beside the "
                                      "output); JSON goes beside it"),
                             cl::value_desc("file"), cl::cat(Category));
cl::opt<unsigned> MaxEvents("max-events", cl::desc("With --traced: events kept per row"),
                            cl::init(1024), cl::cat(Category));
cl::opt<std::string> ClockKind("clock", cl::desc("With --traced: clock64 | globaltimer"),
                               cl::init("clock64"), cl::cat(Category));

cl::opt<std::string> Explain("explain",
                             cl::desc("Report every stage and per-kernel before/after diffs: "
                                      "terminal (stderr), html or both (also CUTRACE_EXPLAIN)"),
                             cl::value_desc("terminal|html|both"), cl::ValueOptional,
                             cl::cat(Category));
cl::opt<std::string> ExplainDir("explain-dir",
                                cl::desc("Folder for HTML reports, one run folder each (also "
                                         "CUTRACE_EXPLAIN_DIR; default debug/explain)"),
                                cl::value_desc("dir"), cl::cat(Category));

std::vector<std::string> CommandAfterDashDash;

/// Where --explain sends reports; resolved once from the options and the environment.
struct ExplainTarget {
  bool Terminal = false, Html = false;
  std::string Dir = "debug/explain";
  std::string RunFolder; // created by the first HTML report of this run
  bool on() const { return Terminal || Html; }
} Explaining;

namespace stage {
constexpr llvm::StringLiteral Collect = "collect annotations", ParseHost = "parse host pass",
                              ParseDevice = "parse device pass", Check = "check rules",
                              Plan = "plan edits", Apply = "apply edits", Map = "write map",
                              Output = "write output", Against = "compare with --against";
} // namespace stage

void usageError(const llvm::Twine &Message) {
  llvm::errs() << "trace-rewrite: error: " << Message << "\n";
}

struct SourceFile {
  std::string Path;
  std::unique_ptr<llvm::MemoryBuffer> Buffer;
  llvm::StringRef text() const { return Buffer->getBuffer(); }
};

std::optional<SourceFile> readSource(const std::string &Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/true);
  if (!Buffer) {
    usageError("cannot read '" + Path + "': " + Buffer.getError().message());
    return std::nullopt;
  }
  return SourceFile{Path, std::move(*Buffer)};
}

bool writeFile(llvm::StringRef Path, llvm::StringRef Text) {
  llvm::StringRef Parent = llvm::sys::path::parent_path(Path);
  if (Path != "-" && !Parent.empty())
    if (std::error_code EC = llvm::sys::fs::create_directories(Parent)) {
      usageError("cannot create '" + Parent + "': " + EC.message());
      return false;
    }
  llvm::Error E = llvm::writeToOutput(Path, [&](llvm::raw_ostream &OS) {
    OS << Text;
    return llvm::Error::success();
  });
  if (E) {
    usageError("cannot write '" + Path + "': " + llvm::toString(std::move(E)));
    return false;
  }
  return true;
}

/// Compile flags for a file: from -p or a compile_commands.json found upward, then --extra-arg,
/// then whatever follows `--`.
compat::ParseOptions parseOptionsFor(const std::string &Path) {
  compat::ParseOptions Options;
  Options.CudaPath = CudaPath;
  Options.GpuArch = GpuArch;
  std::string Error;
  std::unique_ptr<clang::tooling::CompilationDatabase> Db =
      BuildPath.empty() ? clang::tooling::CompilationDatabase::autoDetectFromSource(Path, Error)
                        : clang::tooling::CompilationDatabase::loadFromDirectory(BuildPath, Error);
  if (!BuildPath.empty() && !Db)
    llvm::errs() << "trace-rewrite: warning: " << Error << "\n";
  if (Db) {
    llvm::SmallString<256> Absolute(Path);
    llvm::sys::fs::make_absolute(Absolute);
    for (const clang::tooling::CompileCommand &C : Db->getCompileCommands(Absolute)) {
      Options.ExtraArgs = compat::translateCompileCommand(C.CommandLine);
      // Relative -I paths in the database are relative to its working directory.
      for (std::string &A : Options.ExtraArgs)
        for (llvm::StringRef Flag : {"-I", "-isystem"})
          if (llvm::StringRef(A).starts_with(Flag) && A.size() > Flag.size() &&
              !llvm::sys::path::is_absolute(A.substr(Flag.size())))
            A = Flag.str() + C.Directory + "/" + A.substr(Flag.size());
      break;
    }
  }
  Options.ExtraArgs.insert(Options.ExtraArgs.end(), ExtraArgs.begin(), ExtraArgs.end());
  std::vector<std::string> Command = {"cc"};
  Command.insert(Command.end(), CommandAfterDashDash.begin(), CommandAfterDashDash.end());
  for (std::string &A : compat::translateCompileCommand(Command))
    Options.ExtraArgs.push_back(std::move(A));
  return Options;
}

/// Prints problems to stderr and returns the same diagnostics, uncoloured, for the report.
std::string printProblems(const SourceFile &F, const std::vector<Problem> &Problems) {
  std::string Captured;
  llvm::raw_string_ostream Capture(Captured);
  DiagnosticPrinter Printer(F.Path, F.text(), llvm::errs()), Recorder(F.Path, F.text(), Capture);
  for (const Problem &P : Problems) {
    Printer.print(P);
    Recorder.print(P);
  }
  return Captured;
}

/// An error line for stderr that the report keeps too.
std::string printLine(const std::string &Line) {
  llvm::errs() << Line << "\n";
  return Line + "\n";
}

unsigned countLevel(const std::vector<Problem> &Problems, Severity Level) {
  return std::count_if(Problems.begin(), Problems.end(),
                       [&](const Problem &P) { return P.Level == Level; });
}

/// One Clang pass, timed and recorded; a pass that cannot run fails its stage.
ParseOutcome parsePass(const SourceFile &F, const compat::ParseOptions &Options,
                       compat::CudaPass Pass, RunReport &R) {
  llvm::StringRef Stage = Pass == compat::CudaPass::Host ? stage::ParseHost : stage::ParseDevice;
  R.start(Stage);
  ParseOutcome P = parseSource(F.Path, Options, Pass);
  std::string Diagnostics;
  for (const ClangDiagnostic &D : P.Diagnostics)
    if (D.Level != Severity::Note)
      Diagnostics += (D.Location.empty() ? F.Path : D.Location) +
                     (D.Level == Severity::Error ? ": error: " : ": warning: ") + D.Message + "\n";
  std::vector<Count> Counts = {{"kernels", static_cast<unsigned>(P.Model.Kernels.size())},
                               {"launch sites", static_cast<unsigned>(P.Model.Launches.size())},
                               {"annotations seen", static_cast<unsigned>(P.Model.Uses.size())},
                               {"clang errors", P.errorCount()}};
  if (P.Ran)
    R.complete(Stage, std::move(Counts), std::move(Diagnostics));
  else
    R.fail(Stage, "could not parse the file: " + P.FailureReason, std::move(Diagnostics));
  return P;
}

ScanResult collectAnnotations(const SourceFile &F, RunReport &R) {
  R.start(stage::Collect);
  ScanResult Scan = scanAnnotations(F.text());
  R.complete(stage::Collect, annotationCounts(Scan));
  return Scan;
}

/// Lexical rule violations end strip and traced runs before anything is parsed.
bool lexicalRulesHold(const SourceFile &F, const ScanResult &Scan, RunReport &R) {
  R.start(stage::Check);
  if (!hasErrors(Scan.Problems))
    return true;
  R.fail(stage::Check,
         std::to_string(countLevel(Scan.Problems, Severity::Error)) + " rule violation(s)",
         printProblems(F, Scan.Problems));
  return false;
}

/// Records the stripped text and where it changed (per function around an annotation).
std::string applyStrip(const SourceFile &F, const ScanResult &Scan, RunReport &R) {
  R.start(stage::Plan);
  std::vector<Span> Deletions = planStripDeletions(F.text(), strippedStatements(Scan));
  R.complete(stage::Plan, {{"deletions", static_cast<unsigned>(Deletions.size())}});
  R.start(stage::Apply);
  std::string Stripped = applyDeletions(F.text(), Deletions);
  R.complete(stage::Apply,
             {{"bytes removed", static_cast<unsigned>(F.text().size() - Stripped.size())}});
  if (Explaining.on())
    R.setChanges(
        describeChanges(F.text(), deletionEdits(Deletions), functionRegions(F.text(), Scan)));
  return Stripped;
}

void recordWrite(llvm::StringRef Stage, bool Written, llvm::StringRef Path, RunReport &R,
                 std::vector<Count> Counts = {}) {
  if (Written)
    R.complete(Stage, std::move(Counts));
  else
    R.fail(Stage, "cannot write '" + Path.str() + "'");
}

std::string outputPathFor(const SourceFile &F) {
  if (InPlace)
    return F.Path;
  return Output.empty() ? "-" : Output.getValue();
}

int runStrip(const SourceFile &F, RunReport &R) {
  ScanResult Scan = collectAnnotations(F, R);
  for (llvm::StringRef Pass : {stage::ParseHost, stage::ParseDevice})
    R.skip(Pass, "strip is lexical: it works on the raw token stream, without a Clang parse");
  R.skip(stage::Map, "only --traced writes a decode map");
  if (!lexicalRulesHold(F, Scan, R))
    return AnnotationErrors;
  R.complete(stage::Check, {{"warnings", countLevel(Scan.Problems, Severity::Warning)}});
  std::string Stripped = applyStrip(F, Scan, R);
  R.start(stage::Output);
  std::string Out = outputPathFor(F);
  bool Written = writeFile(Out, Stripped);
  recordWrite(stage::Output, Written, Out, R);
  return Written ? Ok : UsageOrIo;
}

int runVerify(const SourceFile &F, RunReport &R) {
  ScanResult Scan = collectAnnotations(F, R);
  compat::ParseOptions Options = parseOptionsFor(F.Path);
  std::vector<ParseOutcome> Passes = {parsePass(F, Options, compat::CudaPass::Host, R),
                                      parsePass(F, Options, compat::CudaPass::Device, R)};
  R.start(stage::Check);
  Verdict V = verifyAnnotations(Scan, Passes);
  std::string Diagnostics = printProblems(F, V.Problems);
  for (const std::string &Why : V.Unchecked)
    Diagnostics += printLine(F.Path + ": " + (Strict ? "error" : "note") + ": " + Why);
  if (V.IgnoredClangErrors)
    Diagnostics += printLine(F.Path + ": note: " + std::to_string(V.IgnoredClangErrors) +
                             " Clang error(s) outside annotated functions were ignored");
  for (const std::string &Foreign : V.ForeignErrors)
    Diagnostics += Foreign + "\n";
  std::vector<Count> Counts = {{"errors", countLevel(V.Problems, Severity::Error)},
                               {"warnings", countLevel(V.Problems, Severity::Warning)},
                               {"unchecked", static_cast<unsigned>(V.Unchecked.size())}};
  if (V.failed())
    R.fail(stage::Check, "the annotations break the rules", std::move(Diagnostics),
           std::move(Counts));
  else
    R.complete(stage::Check, std::move(Counts), std::move(Diagnostics));
  int Status = V.failed() ? AnnotationErrors : Ok;
  std::string Stripped = applyStrip(F, Scan, R);
  if (Status == Ok) {
    ScanResult Again = scanAnnotations(Stripped);
    if (!Again.Annotations.empty() || stripAnnotations(Stripped, Again) != Stripped) {
      R.fail(stage::Apply, "strip is not idempotent on this file",
             printLine(F.Path + ": error: strip is not idempotent on this file"));
      Status = AnnotationErrors;
    }
  }
  R.skip(stage::Map, "only --traced writes a decode map");
  R.skip(stage::Output, "--verify-strip writes nothing");
  if (!Against.empty()) {
    R.start(stage::Against);
    std::optional<SourceFile> Plain = readSource(Against);
    if (!Plain) {
      R.fail(stage::Against, "cannot read '" + Against + "'");
      return UsageOrIo;
    }
    std::string Diff = unifiedDiff(Plain->text(), Stripped, Against, "strip(" + F.Path + ")");
    if (!Diff.empty()) {
      R.fail(stage::Against, "strip(FILE) differs from " + Against,
             printLine(F.Path + ": error: strip(" + F.Path + ") differs from " + Against) + Diff);
      llvm::outs() << Diff;
      Status = AnnotationErrors;
    } else {
      R.complete(stage::Against);
    }
  }
  if (Status == Ok && Strict && !V.Unchecked.empty())
    return ParseFailure;
  return Status;
}

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

std::string mapPathFor(const SourceFile &F, llvm::StringRef Out) {
  if (!MapPath.empty())
    return MapPath;
  llvm::SmallString<256> P(Out == "-" ? "." : Out);
  if (Out != "-")
    llvm::sys::path::remove_filename(P);
  llvm::sys::path::append(P, llvm::sys::path::stem(F.Path) + ".trace_map.h");
  return P.str().str();
}

int runTraced(const SourceFile &F, RunReport &R) {
  ScanResult Scan = collectAnnotations(F, R);
  if (!lexicalRulesHold(F, Scan, R))
    return AnnotationErrors;
  // One parse when the host pass saw every annotation: the device pass could add nothing.
  compat::ParseOptions ParseOpts = parseOptionsFor(F.Path);
  std::vector<ParseOutcome> Passes = {parsePass(F, ParseOpts, compat::CudaPass::Host, R)};
  if (needsDevicePass(Scan, Passes.front()))
    Passes.push_back(parsePass(F, ParseOpts, compat::CudaPass::Device, R));
  else
    R.skip(stage::ParseDevice, "the host pass saw every annotation; the device pass could add "
                               "nothing");
  for (const ParseOutcome &P : Passes)
    if (!P.Ran) {
      llvm::StringRef Stage =
          P.Pass == compat::CudaPass::Host ? stage::ParseHost : stage::ParseDevice;
      R.fail(Stage, R.stage(Stage)->Reason,
             printLine(F.Path + ": error: cannot rewrite: the " + compat::passName(P.Pass).str() +
                       " pass could not parse the file (" + P.FailureReason + ")") +
                 R.stage(Stage)->Diagnostics);
      return ParseFailure;
    }
  R.start(stage::Check);
  Verdict V = verifyAnnotations(Scan, Passes);
  if (V.failed()) {
    R.fail(stage::Check, "the annotations break the rules", printProblems(F, V.Problems),
           {{"errors", countLevel(V.Problems, Severity::Error)}});
    return AnnotationErrors;
  }
  R.complete(stage::Check,
             {{"errors", 0}, {"warnings", countLevel(V.Problems, Severity::Warning)}});
  std::string Out = outputPathFor(F);
  std::string Map = mapPathFor(F, Out);
  TracedOptions Options;
  Options.MaxEvents = MaxEvents;
  Options.Clock = ClockKind;
  Options.SourceName = llvm::sys::path::filename(F.Path).str();
  Options.MapInclude = includePath(Out, Map);
  R.start(stage::Plan);
  SourceModel Model = mergeModels(Passes);
  TracedPlan Plan = planTraced(F.text(), Scan, Model, Options);
  std::string PlanDiagnostics = printProblems(F, Plan.Problems);
  std::vector<NamedRegion> Regions = tracedRegions(F.text(), Plan, Model);
  std::vector<Count> Counts = {
      {"kernels", static_cast<unsigned>(Plan.KernelSpans.size())},
      {"launch sites", static_cast<unsigned>(std::count_if(Regions.begin(), Regions.end(),
                                                           [](const NamedRegion &N) {
                                                             return N.What ==
                                                                    ChangedRegion::LaunchSite;
                                                           }))},
      {"edits", static_cast<unsigned>(Plan.Edits.size())},
      {"warnings", countLevel(Plan.Problems, Severity::Warning)}};
  if (hasErrors(Plan.Problems)) {
    R.fail(stage::Plan, "the plan has errors", std::move(PlanDiagnostics), std::move(Counts));
    return AnnotationErrors;
  }
  R.complete(stage::Plan, std::move(Counts), std::move(PlanDiagnostics));
  R.start(stage::Apply);
  llvm::Expected<std::string> Text = applyEdits(F.text(), Plan.Edits);
  if (!Text) {
    std::string Why = llvm::toString(Text.takeError());
    usageError(Why);
    R.fail(stage::Apply, Why);
    return UsageOrIo;
  }
  R.complete(stage::Apply, {{"bytes in", static_cast<unsigned>(F.text().size())},
                            {"bytes out", static_cast<unsigned>(Text->size())}});
  if (Explaining.on())
    R.setChanges(describeChanges(F.text(), Plan.Edits, Regions));
  R.start(stage::Map);
  llvm::SmallString<256> Json(Map);
  llvm::sys::path::replace_extension(Json, ".json");
  bool Written =
      writeFile(Map, renderMapHeader(Plan.Map)) && writeFile(Json, renderMapJson(Plan.Map));
  unsigned Sites = 0;
  for (const KernelMapModel &K : Plan.Map.Kernels)
    Sites += K.Sites.size();
  recordWrite(stage::Map, Written, Map, R,
              {{"kernels", static_cast<unsigned>(Plan.Map.Kernels.size())}, {"sites", Sites}});
  if (!Written)
    return UsageOrIo;
  R.start(stage::Output);
  Written = writeFile(Out, *Text);
  recordWrite(stage::Output, Written, Out, R);
  return Written ? Ok : UsageOrIo;
}

/// Splits off everything after `--`: a compile command for the parse.
std::vector<const char *> splitDashDash(int Argc, const char **Argv) {
  std::vector<const char *> Own;
  for (int I = 0; I < Argc; ++I) {
    if (llvm::StringRef(Argv[I]) == "--") {
      for (int J = I + 1; J < Argc; ++J)
        CommandAfterDashDash.push_back(Argv[J]);
      break;
    }
    Own.push_back(Argv[I]);
  }
  return Own;
}

/// --explain[=where] wins over CUTRACE_EXPLAIN; --explain-dir over CUTRACE_EXPLAIN_DIR.
bool resolveExplain() {
  const char *Env = std::getenv("CUTRACE_EXPLAIN");
  std::string Where = Explain.getNumOccurrences()
                          ? (Explain.empty() ? "terminal" : Explain.getValue())
                      : Env ? Env
                            : "";
  if (Where == "terminal" || Where == "both")
    Explaining.Terminal = true;
  if (Where == "html" || Where == "both")
    Explaining.Html = true;
  if (!Where.empty() && !Explaining.on())
    return usageError("--explain (or CUTRACE_EXPLAIN) must be terminal, html or both, not '" +
                      Where + "'"),
           false;
  const char *EnvDir = std::getenv("CUTRACE_EXPLAIN_DIR");
  if (!ExplainDir.empty())
    Explaining.Dir = ExplainDir;
  else if (EnvDir && *EnvDir)
    Explaining.Dir = EnvDir;
  return true;
}

bool validateOptions() {
  if (Files.empty())
    return usageError("no input files (see --help)"), false;
  if (InPlace && !Output.empty())
    return usageError("-i and -o cannot be combined"), false;
  if (RunMode != Mode::VerifyStrip && Files.size() > 1 && !InPlace)
    return usageError("several input files need -i (one output per file)"), false;
  if (RunMode == Mode::Traced && InPlace)
    return usageError("--traced never rewrites its input; use -o"), false;
  if (!Against.empty() && (RunMode != Mode::VerifyStrip || Files.size() != 1))
    return usageError("--against needs --verify-strip and exactly one file"), false;
  if (ClockKind != "clock64" && ClockKind != "globaltimer")
    return usageError("--clock must be clock64 or globaltimer"), false;
  if (MaxEvents == 0 || MaxEvents > (1u << 24))
    return usageError("--max-events must be between 1 and 16777216"), false;
  return resolveExplain();
}

std::vector<std::string> stagesOf(Mode M) {
  std::vector<std::string> Names;
  for (llvm::StringRef S : {stage::Collect, stage::ParseHost, stage::ParseDevice, stage::Check,
                            stage::Plan, stage::Apply, stage::Map, stage::Output})
    Names.push_back(S.str());
  if (M == Mode::VerifyStrip && !Against.empty())
    Names.push_back(stage::Against.str());
  return Names;
}

/// The report of one file: to stderr, and/or as HTML in this run's folder (one line says where).
void emitReport(const RunReport &Report) {
  if (Explaining.Terminal)
    renderTerminal(Report, llvm::errs(), terminalWantsColor(llvm::errs()));
  if (!Explaining.Html)
    return;
  if (Explaining.RunFolder.empty()) {
    llvm::Expected<std::string> Folder = createRunFolder(Explaining.Dir);
    if (!Folder) {
      usageError("explain report: " + llvm::toString(Folder.takeError()));
      return;
    }
    Explaining.RunFolder = *Folder;
  }
  std::string Stem = llvm::sys::path::filename(Report.file()).str();
  llvm::SmallString<256> Path;
  for (unsigned N = 0; N == 0 || llvm::sys::fs::exists(Path); ++N) {
    Path = Explaining.RunFolder;
    llvm::sys::path::append(Path, Stem + (N ? "_" + std::to_string(N) : "") + ".html");
  }
  if (!writeFile(Path, renderHtml(Report)))
    return;
  if (llvm::Error E = pointLatest(Explaining.Dir, Explaining.RunFolder))
    llvm::errs() << "trace-rewrite: warning: explain report: " << llvm::toString(std::move(E))
                 << "\n";
  llvm::errs() << "trace-rewrite: explain report: " << Path << "\n";
}

} // namespace

int main(int Argc, const char **Argv) {
  cl::HideUnrelatedOptions(Category);
  cl::SetVersionPrinter(
      [](llvm::raw_ostream &OS) { OS << "trace-rewrite (cutrace) " << CUTRACE_VERSION << "\n"; });
  std::vector<const char *> Own = splitDashDash(Argc, Argv);
  if (!cl::ParseCommandLineOptions(
          static_cast<int>(Own.size()), Own.data(),
          "cutrace source rewriter\n\n"
          "  trace-rewrite kernel.cu [-o out.cu | -i]          strip annotations (default)\n"
          "  trace-rewrite --traced kernel.cu -o traced.cu     expand them into recording code\n"
          "  trace-rewrite --verify-strip kernel.cu...         pre-commit check\n\n"
          "Exit status: 0 ok, 1 annotation or verification errors, 2 usage or I/O errors,\n"
          "3 the file could not be parsed. Nothing is written when the status is not 0.\n",
          &llvm::errs()))
    return UsageOrIo;
  if (!validateOptions())
    return UsageOrIo;
  int Worst = Ok;
  for (const std::string &Path : Files) {
    std::optional<SourceFile> F = readSource(Path);
    if (!F)
      return UsageOrIo;
    RunReport Report(Path,
                     RunMode == Mode::Strip    ? "strip"
                     : RunMode == Mode::Traced ? "traced"
                                               : "verify-strip",
                     stagesOf(RunMode));
    int Status = RunMode == Mode::Strip    ? runStrip(*F, Report)
                 : RunMode == Mode::Traced ? runTraced(*F, Report)
                                           : runVerify(*F, Report);
    Report.finish();
    if (Explaining.on())
      emitReport(Report);
    Worst = std::max(Worst, Status);
  }
  return Worst;
}
