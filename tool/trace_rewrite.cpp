// trace-rewrite: strip cutrace annotations, verify they can be stripped exactly, or expand them
// into recording code. Argument parsing, exit codes and file output only; the work is in
// rewriter/.
#include "AnnotationScanner.h"
#include "DiagnosticPrinter.h"
#include "LineDiff.h"
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
cl::opt<std::string> Output("o", cl::desc("Write the result to <file> ('-' = stdout, the default "
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
cl::opt<Mode> RunMode(
    cl::desc("Mode:"),
    cl::values(clEnumValN(Mode::Strip, "strip", "Delete every annotation (default)"),
               clEnumValN(Mode::Traced, "traced", "Expand annotations into recording code"),
               clEnumValN(Mode::VerifyStrip, "verify-strip",
                          "Check the files obey every annotation rule and strip exactly")),
    cl::init(Mode::Strip), cl::cat(Category));
cl::opt<std::string> Against("against", cl::desc("With --verify-strip: require strip(FILE) to "
                                                 "equal this file byte for byte"),
                             cl::value_desc("plain.cu"), cl::cat(Category));
cl::opt<bool> Strict("strict", cl::desc("With --verify-strip: fail (exit 3) when a Clang pass "
                                        "cannot parse the file, instead of running only the "
                                        "lexical checks"),
                     cl::cat(Category));
cl::opt<std::string> MapPath("map", cl::desc("With --traced: decode-map header to write "
                                             "(default: <input stem>.trace_map.h beside the "
                                             "output); JSON goes beside it"),
                             cl::value_desc("file"), cl::cat(Category));
cl::opt<unsigned> MaxEvents("max-events", cl::desc("With --traced: events kept per row"),
                            cl::init(1024), cl::cat(Category));
cl::opt<std::string> ClockKind("clock", cl::desc("With --traced: clock64 | globaltimer"),
                               cl::init("clock64"), cl::cat(Category));

std::vector<std::string> CommandAfterDashDash;

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
      BuildPath.empty()
          ? clang::tooling::CompilationDatabase::autoDetectFromSource(Path, Error)
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

std::vector<ParseOutcome> parseBothPasses(const std::string &Path) {
  compat::ParseOptions Options = parseOptionsFor(Path);
  return {parseSource(Path, Options, compat::CudaPass::Host),
          parseSource(Path, Options, compat::CudaPass::Device)};
}

void printProblems(const SourceFile &F, const std::vector<Problem> &Problems) {
  DiagnosticPrinter Printer(F.Path, F.text(), llvm::errs());
  for (const Problem &P : Problems)
    Printer.print(P);
}

std::string outputPathFor(const SourceFile &F) {
  if (InPlace)
    return F.Path;
  return Output.empty() ? "-" : Output.getValue();
}

int runStrip(const SourceFile &F) {
  ScanResult Scan = scanAnnotations(F.text());
  if (hasErrors(Scan.Problems)) {
    printProblems(F, Scan.Problems);
    return AnnotationErrors;
  }
  return writeFile(outputPathFor(F), stripAnnotations(F.text(), Scan)) ? Ok : UsageOrIo;
}

int runVerify(const SourceFile &F) {
  ScanResult Scan = scanAnnotations(F.text());
  std::vector<ParseOutcome> Passes = parseBothPasses(F.Path);
  Verdict V = verifyAnnotations(Scan, Passes);
  printProblems(F, V.Problems);
  for (const std::string &Why : V.Unchecked)
    llvm::errs() << F.Path << ": " << (Strict ? "error" : "note") << ": " << Why << "\n";
  if (V.IgnoredClangErrors)
    llvm::errs() << F.Path << ": note: " << V.IgnoredClangErrors
                 << " Clang error(s) outside annotated functions were ignored\n";
  int Status = V.failed() ? AnnotationErrors : Ok;
  std::string Stripped = stripAnnotations(F.text(), Scan);
  if (Status == Ok) {
    ScanResult Again = scanAnnotations(Stripped);
    if (!Again.Annotations.empty() || stripAnnotations(Stripped, Again) != Stripped) {
      llvm::errs() << F.Path << ": error: strip is not idempotent on this file\n";
      Status = AnnotationErrors;
    }
  }
  if (!Against.empty()) {
    std::optional<SourceFile> Plain = readSource(Against);
    if (!Plain)
      return UsageOrIo;
    std::string Diff = unifiedDiff(Plain->text(), Stripped, Against, "strip(" + F.Path + ")");
    if (!Diff.empty()) {
      llvm::errs() << F.Path << ": error: strip(" << F.Path << ") differs from " << Against
                   << "\n";
      llvm::outs() << Diff;
      Status = AnnotationErrors;
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

int runTraced(const SourceFile &F) {
  ScanResult Scan = scanAnnotations(F.text());
  if (hasErrors(Scan.Problems)) {
    printProblems(F, Scan.Problems);
    return AnnotationErrors;
  }
  // One parse when the host pass saw every annotation: the device pass could add nothing.
  compat::ParseOptions ParseOpts = parseOptionsFor(F.Path);
  std::vector<ParseOutcome> Passes = {parseSource(F.Path, ParseOpts, compat::CudaPass::Host)};
  if (needsDevicePass(Scan, Passes.front()))
    Passes.push_back(parseSource(F.Path, ParseOpts, compat::CudaPass::Device));
  for (const ParseOutcome &P : Passes)
    if (!P.Ran) {
      llvm::errs() << F.Path << ": error: cannot rewrite: the " << compat::passName(P.Pass)
                   << " pass could not parse the file (" << P.FailureReason << ")\n";
      return ParseFailure;
    }
  Verdict V = verifyAnnotations(Scan, Passes);
  if (V.failed()) {
    printProblems(F, V.Problems);
    return AnnotationErrors;
  }
  std::string Out = outputPathFor(F);
  std::string Map = MapPath;
  if (Map.empty()) {
    llvm::SmallString<256> P(Out == "-" ? "." : Out);
    if (Out != "-")
      llvm::sys::path::remove_filename(P);
    llvm::sys::path::append(P, llvm::sys::path::stem(F.Path) + ".trace_map.h");
    Map = P.str().str();
  }
  TracedOptions Options;
  Options.MaxEvents = MaxEvents;
  Options.Clock = ClockKind;
  Options.SourceName = llvm::sys::path::filename(F.Path).str();
  Options.MapInclude = includePath(Out, Map);
  TracedPlan Plan = planTraced(F.text(), Scan, mergeModels(Passes), Options);
  printProblems(F, Plan.Problems);
  if (hasErrors(Plan.Problems))
    return AnnotationErrors;
  llvm::Expected<std::string> Text = applyEdits(F.text(), Plan.Edits);
  if (!Text) {
    usageError(llvm::toString(Text.takeError()));
    return UsageOrIo;
  }
  llvm::SmallString<256> Json(Map);
  llvm::sys::path::replace_extension(Json, ".json");
  bool Written = writeFile(Map, renderMapHeader(Plan.Map)) &&
                 writeFile(Json, renderMapJson(Plan.Map)) && writeFile(Out, *Text);
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
  return true;
}

} // namespace

int main(int Argc, const char **Argv) {
  cl::HideUnrelatedOptions(Category);
  cl::SetVersionPrinter([](llvm::raw_ostream &OS) {
    OS << "trace-rewrite (cutrace) " << CUTRACE_VERSION << "\n";
  });
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
    int Status = RunMode == Mode::Strip    ? runStrip(*F)
                 : RunMode == Mode::Traced ? runTraced(*F)
                                           : runVerify(*F);
    Worst = std::max(Worst, Status);
  }
  return Worst;
}
