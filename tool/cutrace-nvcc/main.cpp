// cutrace-nvcc: nvcc with every CUDA source rewritten on its way in, traced or stripped, for
// build systems other than CMake (docs/cli.md, "cutrace-nvcc"). Each source is rewritten on its
// own through the pipeline library, so parallel builds need nothing shared between compiles.
#include "CompilerMessages.h"
#include "DependencyFile.h"
#include "LoopCost.h"
#include "NvccCommand.h"
#include "PtxasNotes.h"
#include "auto/AutoPlan.h"
#include "pipeline/Rewrite.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>

using namespace cutrace;

namespace {

enum class WrapMode { Traced, Strip, Off };

/// Printed before nvcc's own help for --help / -h.
constexpr llvm::StringLiteral WrapperHelp =
    "cutrace-nvcc: nvcc with every CUDA source rewritten on its way in (docs/cli.md, "
    "\"cutrace-nvcc\").\n"
    "usage: cutrace-nvcc [--cutrace-OPTION...] <nvcc arguments>\n"
    "  --cutrace-mode=traced|strip|off   traced (default): record; strip: the annotations "
    "deleted;\n"
    "                                    off: nvcc unchanged           (also CUTRACE_MODE)\n"
    "  --cutrace-max-events=N            events kept per row           (CUTRACE_MAX_EVENTS)\n"
    "  --cutrace-clock=clock64|globaltimer                             (CUTRACE_CLOCK)\n"
    "  --cutrace-auto[=ctas|warps]       trace kernels without annotations too (CUTRACE_AUTO)\n"
    "  --cutrace-auto-kernels=GLOB,-GLOB which of them                 (CUTRACE_AUTO_KERNELS)\n"
    "  --cutrace-cflags, --cutrace-libs  print the flags / libraries a traced build adds\n"
    "  --cutrace-cost                    after a traced compile, the PTX instructions recording\n"
    "                                    adds inside each loop of each kernel (CUTRACE_COST=1)\n"
    "A traced link adds the runtime libraries itself. The real compiler is nvcc on PATH "
    "(CUTRACE_NVCC names another).\n"
    "nvcc's own options follow.\n\n";

int wrapperError(const llvm::Twine &Message) {
  llvm::errs() << "cutrace-nvcc: error: " << Message << "\n";
  return 1; // like a compiler: every failure is status 1
}

/// The wrapper's own options: --cutrace-<name>=<value> on the command line wins over
/// CUTRACE_<NAME> in the environment. They are never passed on to nvcc.
struct WrapperOptions {
  std::string Mode, MaxEvents, Clock, Auto, AutoKernels;
  bool PrintCflags = false, PrintLibs = false;
  bool Cost = false; // --cutrace-cost: the instructions recording adds inside each loop
};

std::string fromEnv(const char *Name) {
  const char *Value = std::getenv(Name);
  return Value ? Value : "";
}

/// Takes the wrapper's options out of Args.
std::optional<std::string> takeWrapperOptions(std::vector<std::string> &Args, WrapperOptions &O) {
  O = {fromEnv("CUTRACE_MODE"), fromEnv("CUTRACE_MAX_EVENTS"), fromEnv("CUTRACE_CLOCK"),
       fromEnv("CUTRACE_AUTO"), fromEnv("CUTRACE_AUTO_KERNELS")};
  O.Cost = !fromEnv("CUTRACE_COST").empty() && fromEnv("CUTRACE_COST") != "0";
  std::vector<std::string> Kept;
  for (const std::string &A : Args) {
    llvm::StringRef Arg = A;
    if (!Arg.consume_front("--cutrace-")) {
      Kept.push_back(A);
      continue;
    }
    auto [Name, Value] = Arg.split('=');
    if (Name == "mode")
      O.Mode = Value.str();
    else if (Name == "max-events")
      O.MaxEvents = Value.str();
    else if (Name == "clock")
      O.Clock = Value.str();
    else if (Arg == "auto")
      O.Auto = "ctas";
    else if (Name == "auto")
      O.Auto = Value.str();
    else if (Name == "auto-kernels")
      O.AutoKernels = Value.str();
    else if (Arg == "cflags")
      O.PrintCflags = true;
    else if (Arg == "libs")
      O.PrintLibs = true;
    else if (Arg == "cost")
      O.Cost = true;
    else
      return "unknown option '" + A +
             "' (--cutrace-mode=, --cutrace-max-events=, --cutrace-clock=, --cutrace-auto[=], "
             "--cutrace-auto-kernels=, --cutrace-cflags, --cutrace-libs, --cutrace-cost)";
  }
  Args = std::move(Kept);
  return std::nullopt;
}

std::optional<std::string> modeOf(const WrapperOptions &O, WrapMode &Mode) {
  if (O.Mode.empty() || O.Mode == "traced")
    Mode = WrapMode::Traced;
  else if (O.Mode == "strip")
    Mode = WrapMode::Strip;
  else if (O.Mode == "off")
    Mode = WrapMode::Off;
  else
    return "CUTRACE_MODE (or --cutrace-mode) must be traced, strip or off, not '" + O.Mode + "'";
  return std::nullopt;
}

/// The same limits trace-rewrite's --max-events and --clock have (docs/cli.md).
std::optional<std::string> tracedOptions(const WrapperOptions &O, RewriteRequest &R) {
  if (!O.MaxEvents.empty()) {
    unsigned long long N = 0;
    if (llvm::getAsUnsignedInteger(O.MaxEvents, 10, N) || N == 0 || N > (1u << 24))
      return "CUTRACE_MAX_EVENTS must be a number between 1 and 16777216, not '" + O.MaxEvents +
             "'";
    R.MaxEvents = static_cast<unsigned>(N);
  }
  if (!O.Clock.empty()) {
    if (O.Clock != "clock64" && O.Clock != "globaltimer")
      return "CUTRACE_CLOCK must be clock64 or globaltimer, not '" + O.Clock + "'";
    R.Clock = O.Clock;
  }
  // --auto of the traced rewrite (docs/auto.md): off when empty or 0.
  if (!O.Auto.empty() && O.Auto != "0") {
    if (O.Auto != "ctas" && O.Auto != "warps" && O.Auto != "1")
      return "CUTRACE_AUTO must be ctas, warps, 1 (ctas) or 0, not '" + O.Auto + "'";
    R.Auto = O.Auto == "warps" ? AutoRows::Warps : AutoRows::Ctas;
  }
  if (!O.AutoKernels.empty()) {
    if (R.Auto == AutoRows::None)
      return "CUTRACE_AUTO_KERNELS needs CUTRACE_AUTO (or --cutrace-auto)";
    for (llvm::StringRef Pattern : llvm::split(O.AutoKernels, ',')) {
      if (std::optional<std::string> Problem = autoKernelPatternError(Pattern))
        return "CUTRACE_AUTO_KERNELS pattern '" + Pattern.str() + "': " + *Problem;
      R.AutoKernels.push_back(Pattern.str());
    }
  }
  return std::nullopt;
}

/// cutrace's include directory and the libraries a traced program links: an installed tree
/// (<prefix>/bin/cutrace-nvcc beside <prefix>/include and <prefix>/lib), else this build's own.
struct RuntimeFiles {
  std::string IncludeDir;
  std::vector<std::string> Libraries;
};

RuntimeFiles runtimeFiles(const char *Argv0) {
  static int Anchor;
  std::string Exe = llvm::sys::fs::getMainExecutable(Argv0, &Anchor);
  llvm::StringRef Prefix = llvm::sys::path::parent_path(llvm::sys::path::parent_path(Exe));
  llvm::SmallString<256> Include(Prefix), LibDir(Prefix);
  llvm::sys::path::append(Include, CUTRACE_INSTALL_INCLUDEDIR);
  llvm::sys::path::append(LibDir, CUTRACE_INSTALL_LIBDIR);
  if (llvm::sys::fs::exists(Include + "/cutrace/traced.h") &&
      llvm::sys::fs::exists(LibDir + "/libcutrace.a")) {
    RuntimeFiles F{Include.str().str(), {}};
    for (llvm::StringRef Lib : {"libcutrace.a", "libcutrace_analysis.a", "libcutrace_format.a"})
      F.Libraries.push_back((LibDir + "/" + Lib).str());
    return F;
  }
  return {CUTRACE_BUILD_INCLUDE_DIR,
          {CUTRACE_BUILD_LIBRARY_RUNTIME, CUTRACE_BUILD_LIBRARY_ANALYSIS,
           CUTRACE_BUILD_LIBRARY_FORMAT}};
}

/// The real nvcc: the first argument when it names a compiler (CMAKE_CUDA_COMPILER_LAUNCHER
/// form), else $CUTRACE_NVCC, else nvcc on PATH unless that is this wrapper, else CUDA's default.
std::string realCompiler(std::vector<std::string> &Args, const char *Argv0) {
  if (!Args.empty() && !llvm::StringRef(Args[0]).starts_with("-")) {
    llvm::StringRef Name = llvm::sys::path::filename(Args[0]);
    if (Name.contains("nvcc") ||
        (llvm::sys::path::extension(Name).empty() && llvm::sys::findProgramByName(Args[0]))) {
      std::string Compiler = Args[0];
      Args.erase(Args.begin());
      return Compiler;
    }
  }
  if (std::string Env = fromEnv("CUTRACE_NVCC"); !Env.empty())
    return Env;
  static int Anchor;
  std::string Self = llvm::sys::fs::getMainExecutable(Argv0, &Anchor);
  if (llvm::ErrorOr<std::string> OnPath = llvm::sys::findProgramByName("nvcc"))
    if (!llvm::sys::fs::equivalent(*OnPath, Self))
      return *OnPath;
  return "/usr/local/cuda/bin/nvcc";
}

/// <nvcc dir>/.. when it holds cuda_runtime.h: the toolkit the parse must see.
std::string cudaRootOf(const std::string &Nvcc) {
  llvm::ErrorOr<std::string> Path = llvm::sys::findProgramByName(Nvcc);
  llvm::SmallString<256> Real;
  if (Path && !llvm::sys::fs::real_path(*Path, Real)) {
    llvm::StringRef Root = llvm::sys::path::parent_path(llvm::sys::path::parent_path(Real));
    if (llvm::sys::fs::exists(Root + "/include/cuda_runtime.h"))
      return Root.str();
  }
  return CompileSettings().CudaPath;
}

/// Where the generated sources of one command go: <-o>.cutrace/ (kept, for reading the traced
/// code), or a temporary folder removed when nvcc is done when there is no -o.
struct GeneratedFolder {
  std::string Path;
  bool Temporary = false;
  ~GeneratedFolder() {
    if (Temporary && !Path.empty())
      llvm::sys::fs::remove_directories(Path);
  }
};

std::optional<std::string> makeFolder(const NvccCommand &C, GeneratedFolder &Folder) {
  if (!C.Output.empty() && C.Output != "-") {
    Folder.Path = C.Output + ".cutrace";
    return std::nullopt;
  }
  llvm::SmallString<256> Temp;
  if (std::error_code EC = llvm::sys::fs::createUniqueDirectory("cutrace-nvcc", Temp))
    return "cannot create a temporary folder: " + EC.message();
  Folder = {Temp.str().str(), true};
  return std::nullopt;
}

/// One generated path per CUDA input: the same file name (so nvcc's default object, target and
/// dependency names match the original's), in a numbered subfolder when two inputs share it.
std::vector<GeneratedSource> generatedSources(const NvccCommand &C, llvm::StringRef Folder) {
  std::vector<GeneratedSource> Sources;
  llvm::StringSet<> Names;
  for (size_t I = 0; I < C.Inputs.size(); ++I) {
    if (!C.Inputs[I].IsCuda)
      continue;
    llvm::StringRef Name = llvm::sys::path::filename(C.Inputs[I].Path);
    std::string Path = Names.insert(Name).second
                           ? (Folder + "/" + Name).str()
                           : (Folder + "/" + llvm::Twine(I) + "/" + Name).str();
    Sources.push_back({Path, C.Inputs[I].Path, Folder.str()});
  }
  return Sources;
}

/// `#line 1 "<original>"`: nvcc's messages, __FILE__ and debug line tables name the user's file
/// as in a plain build. Traced output carries its own #line directives.
std::string lineDirective(llvm::StringRef Original) {
  std::string Line = "#line 1 \"";
  for (char Ch : Original) {
    if (Ch == '"' || Ch == '\\')
      Line += '\\';
    Line += Ch;
  }
  return Line + "\"\n";
}

/// Rewrites every CUDA input, all or nothing. False when any rewrite failed (its diagnostics
/// are printed, like a compiler's, and nothing was written). Each traced header copy written is
/// added to HeaderCopies with the project header it stands for, for the dependency output.
bool rewriteSources(llvm::ArrayRef<GeneratedSource> Sources, const RewriteRequest &Base,
                    std::vector<GeneratedSource> &HeaderCopies) {
  std::vector<RewriteResult> Results;
  for (const GeneratedSource &S : Sources) {
    llvm::Expected<SourceFile> Input = readSource(S.Original);
    if (!Input) {
      wrapperError(llvm::toString(Input.takeError()));
      return false;
    }
    RewriteRequest R = Base;
    R.Output = S.Generated;
    Results.push_back(planRewrite(*Input, R, llvm::errs()));
    if (R.Mode == RewriteMode::Strip)
      for (PendingOutput &Out : Results.back().Pending) {
        size_t Bom = llvm::StringRef(Out.Text).starts_with("\xEF\xBB\xBF") ? 3 : 0;
        Out.Text.insert(Bom, lineDirective(S.Original));
      }
  }
  if (!commitRewrites(Results, llvm::errs()) ||
      !llvm::all_of(Results, [](const RewriteResult &R) { return R.Status == Ok; }))
    return false;
  for (const RewriteResult &R : Results)
    for (const PendingOutput &Out : R.Pending)
      if (!Out.StandsFor.empty())
        HeaderCopies.push_back({Out.Path, Out.StandsFor, ""});
  return true;
}

/// `-iquote Dir` for the host compiler's preprocessor. nvcc splits a -Xcompiler value at commas
/// and hands it to a shell unquoted: a space (or another character the shell reads) is kept by
/// double quotes, and a directory that quotes cannot carry (`,`, `"`, `\`, `$`, a backquote)
/// goes to -I, which nvcc quotes itself. One argument, `-Xcompiler=-iquoteDir` (GCC and Clang read
/// `-iquoteDir` as `-iquote Dir`): ccache in front of nvcc reorders the preprocessor flags it
/// knows, which would part a separate `-Xcompiler` from its value and fail the compile it caches.
std::vector<std::string> quoteIncludeArguments(llvm::StringRef Dir) {
  if (Dir.find_first_of(",\"\\$`") != llvm::StringRef::npos)
    return {"-I" + Dir.str()};
  bool Plain = llvm::all_of(Dir, [](char C) {
    return llvm::isAlnum(C) || llvm::StringRef("_./+-=@%:~^").contains(C);
  });
  if (!Plain)
    return {"-Xcompiler=-iquote\"" + Dir.str() + "\""};
  return {"-Xcompiler=-iquote" + Dir.str()};
}

/// nvcc's arguments: the original's directory first on the quote-include path (through the host
/// compiler's preprocessor, which nvcc uses for every pass), the generated file for each input,
/// and in traced mode CUTRACE_TRACED, cutrace's headers and, for a link, its libraries.
std::vector<std::string> nvccArguments(const NvccCommand &C,
                                       llvm::ArrayRef<GeneratedSource> Sources, WrapMode Mode,
                                       const RuntimeFiles &Runtime) {
  std::vector<std::string> Args;
  llvm::StringSet<> Dirs;
  for (const GeneratedSource &S : Sources) {
    std::string Dir = llvm::sys::path::parent_path(S.Original).str();
    if (Dir.empty())
      Dir = ".";
    if (!Dirs.insert(Dir).second)
      continue;
    std::vector<std::string> Quote = quoteIncludeArguments(Dir);
    Args.insert(Args.end(), Quote.begin(), Quote.end());
  }
  size_t Next = 0;
  for (size_t I = 0; I < C.Args.size(); ++I) {
    bool Replaced = false;
    for (const NvccInput &In : C.Inputs)
      if (In.IsCuda && In.ArgIndex == I) {
        Args.push_back(Sources[Next++].Generated);
        Replaced = true;
      }
    if (!Replaced)
      Args.push_back(C.Args[I]);
  }
  if (Mode == WrapMode::Traced)
    Args.push_back("-DCUTRACE_TRACED");
  Args.push_back("-I" + Runtime.IncludeDir); // last: headers that keep annotations see no-ops
  if (Mode == WrapMode::Traced && C.Links)
    Args.insert(Args.end(), Runtime.Libraries.begin(), Runtime.Libraries.end());
  return Args;
}

int runCompiler(const std::string &Compiler, llvm::ArrayRef<std::string> Args,
                std::optional<llvm::StringRef> StdoutFile = std::nullopt,
                std::optional<llvm::StringRef> StderrFile = std::nullopt) {
  llvm::ErrorOr<std::string> Program = llvm::sys::findProgramByName(Compiler);
  if (!Program)
    return wrapperError("cannot find the compiler '" + Compiler + "'");
  std::vector<llvm::StringRef> Argv = {Compiler};
  Argv.insert(Argv.end(), Args.begin(), Args.end());
  std::string Error;
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, StdoutFile, StderrFile};
  int Status = llvm::sys::ExecuteAndWait(
      *Program, Argv, std::nullopt,
      StdoutFile || StderrFile ? llvm::ArrayRef(Redirects)
                               : llvm::ArrayRef<std::optional<llvm::StringRef>>(),
      0, 0, &Error);
  if (Status < 0)
    return wrapperError("'" + Compiler + "' did not finish: " + Error);
  return Status;
}

/// Puts the originals back into a dependency file nvcc wrote; a file that is not there is left
/// alone (nvcc decides whether to write one).
bool restoreDependencyFile(const std::string &Path, llvm::ArrayRef<GeneratedSource> Sources) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path);
  if (!Buffer)
    return true;
  std::string Text = restoreOriginals((*Buffer)->getBuffer(), Sources);
  std::error_code EC;
  llvm::raw_fd_ostream Out(Path, EC);
  if (EC)
    return wrapperError("cannot rewrite the dependency file '" + Path + "': " + EC.message()),
           false;
  Out << Text;
  return true;
}

std::vector<std::string> dependencyFiles(const NvccCommand &C) {
  if (!C.DependencyFile.empty())
    return {C.DependencyFile};
  if (C.DependenciesOnly)
    return C.Output.empty() || C.Output == "-" ? std::vector<std::string>{}
                                               : std::vector<std::string>{C.Output};
  std::vector<std::string> Files;
  if (C.DependenciesWithCompile)
    for (const NvccInput &In : C.Inputs)
      if (In.IsCuda)
        Files.push_back(defaultDependencyFile(C, In));
  return Files;
}

/// Runs nvcc with its messages kept in Folder (a temporary file when there is none) and passes
/// them on, each warning once (the twin repeats the original's), with the wrapper's warning when
/// ptxas serialized a traced twin's wgmma (tool/cutrace-nvcc/PtxasNotes.h) and its note when a
/// link missed the runtime (tool/cutrace-nvcc/CompilerMessages.h).
int runAndReadMessages(const std::string &Compiler, llvm::ArrayRef<std::string> Args,
                       llvm::StringRef Folder) {
  llvm::SmallString<128> Messages;
  if (Folder.empty()) {
    if (llvm::sys::fs::createTemporaryFile("cutrace-nvcc", "txt", Messages))
      return runCompiler(Compiler, Args);
  } else {
    Messages = (Folder + "/compiler-messages.txt").str();
  }
  int Status = runCompiler(Compiler, Args, std::nullopt, llvm::StringRef(Messages));
  if (auto Buffer = llvm::MemoryBuffer::getFile(Messages)) {
    llvm::StringRef Text = (*Buffer)->getBuffer();
    llvm::errs() << withoutRepeatedWarnings(Text) << serializedTwinsWarning(serializedTwins(Text))
                 << (Status ? missingRuntimeNote(Text) : "");
    llvm::errs().flush();
    llvm::sys::fs::remove(Messages);
  }
  return Status;
}

/// --cutrace-cost: compiles each generated source to PTX once more (one arch) and reports, per
/// loop of each kernel, the instructions its twin adds (tool/cutrace-nvcc/LoopCost.h).
void reportLoopCosts(const std::string &Compiler, const NvccCommand &C,
                     llvm::ArrayRef<GeneratedSource> Sources, llvm::ArrayRef<std::string> Args) {
  std::vector<std::string> Generated;
  for (const GeneratedSource &S : Sources)
    Generated.push_back(S.Generated);
  for (const GeneratedSource &S : Sources) {
    std::string Ptx = S.Generated + ".ptx", Log = S.Generated + ".ptx.log";
    int Status = runCompiler(Compiler, ptxArguments(Args, Generated, S.Generated, Ptx),
                             llvm::StringRef(Log), llvm::StringRef(Log));
    auto Text = llvm::MemoryBuffer::getFile(Ptx);
    if (Status || !Text) {
      llvm::errs() << "cutrace-nvcc: note: no loop cost report for " << S.Original
                   << ": nvcc -ptx failed (see " << Log << "; it takes one GPU arch)\n";
      continue;
    }
    std::vector<LoopCost> Costs = loopCosts((*Text)->getBuffer());
    std::string Report = loopCostReport(Costs, C.GpuArch.empty() ? "nvcc's default arch" : C.GpuArch);
    llvm::errs() << (Report.empty() ? "cutrace-nvcc: note: recording adds no instruction inside a "
                                      "loop of " + S.Original + "\n"
                                    : Report);
    llvm::sys::fs::remove(Log);
  }
}

/// Runs nvcc on the generated sources and puts the originals back into its dependency output.
int compile(const std::string &Compiler, const NvccCommand &C,
            llvm::ArrayRef<GeneratedSource> Sources, llvm::ArrayRef<std::string> Args,
            llvm::StringRef Folder) {
  bool DepsToStdout =
      C.DependenciesOnly && C.DependencyFile.empty() && (C.Output.empty() || C.Output == "-");
  if (!DepsToStdout) {
    int Status = runAndReadMessages(Compiler, Args, Folder);
    // Also after a failed compile: a build that includes the .d must not see generated paths.
    for (const std::string &File : dependencyFiles(C))
      if (!restoreDependencyFile(File, Sources))
        return 1;
    return Status;
  }
  std::string Captured = (Folder + "/dependencies.txt").str();
  int Status = runCompiler(Compiler, Args, llvm::StringRef(Captured));
  if (auto Buffer = llvm::MemoryBuffer::getFile(Captured)) {
    llvm::outs() << restoreOriginals((*Buffer)->getBuffer(), Sources);
    llvm::sys::fs::remove(Captured);
  }
  return Status;
}

} // namespace

int main(int Argc, const char **Argv) {
  std::vector<std::string> Args(Argv + 1, Argv + Argc);
  WrapperOptions Options;
  WrapMode Mode = WrapMode::Traced;
  if (std::optional<std::string> Problem = takeWrapperOptions(Args, Options))
    return wrapperError(*Problem);
  if (std::optional<std::string> Problem = modeOf(Options, Mode))
    return wrapperError(*Problem);
  RuntimeFiles Runtime = runtimeFiles(Argv[0]);
  if (Options.PrintCflags || Options.PrintLibs) {
    if (Options.PrintCflags)
      llvm::outs() << (Mode == WrapMode::Traced ? "-DCUTRACE_TRACED " : "") << "-I"
                   << Runtime.IncludeDir << "\n";
    if (Options.PrintLibs && Mode == WrapMode::Traced)
      llvm::outs() << llvm::join(Runtime.Libraries, " ") << "\n";
    return 0;
  }
  std::string Compiler = realCompiler(Args, Argv[0]);
  if (llvm::any_of(Args, [](llvm::StringRef A) { return A == "--help" || A == "-h"; })) {
    llvm::outs() << WrapperHelp;
    llvm::outs().flush();
    return runCompiler(Compiler, Args); // then nvcc's own help
  }
  NvccCommand C = readNvccCommand(Args);
  bool HasCuda = llvm::any_of(C.Inputs, [](const NvccInput &I) { return I.IsCuda; });
  if (Mode == WrapMode::Off || C.Informational || (!HasCuda && !C.Links))
    return runCompiler(Compiler, Args);
  if (C.Problem)
    return wrapperError(*C.Problem);

  RewriteRequest Request;
  Request.Mode = Mode == WrapMode::Traced ? RewriteMode::Traced : RewriteMode::Strip;
  if (std::optional<std::string> Problem = tracedOptions(Options, Request))
    return wrapperError(*Problem);
  Request.Compile.CudaPath = cudaRootOf(Compiler);
  if (!C.GpuArch.empty())
    Request.Compile.GpuArch = C.GpuArch;
  Request.Compile.FindDatabase = false; // this command line is the compile command
  Request.Compile.ExtraArgs = C.ClangArgs;
  // The whole nvcc command line too: the parse takes every arch of -arch/-gencode (one device
  // pass each) and nvcc's dialect macros from it (docs/design.md, "The parse environment").
  Request.Compile.CommandTail = {Compiler};
  Request.Compile.CommandTail.insert(Request.Compile.CommandTail.end(), C.Args.begin(),
                                     C.Args.end());
  if (Mode == WrapMode::Traced) {
    Request.Compile.ExtraArgs.push_back("-DCUTRACE_TRACED");
    if (std::optional<std::string> Problem = compileSettingsProblem(Request.Compile))
      return wrapperError(*Problem);
  }

  GeneratedFolder Folder;
  std::vector<GeneratedSource> Sources, HeaderCopies;
  if (HasCuda) {
    if (std::optional<std::string> Problem = makeFolder(C, Folder))
      return wrapperError(*Problem);
    Sources = generatedSources(C, Folder.Path);
    if (!rewriteSources(Sources, Request, HeaderCopies))
      return 1;
  }
  std::vector<std::string> NvccArgs = nvccArguments(C, Sources, Mode, Runtime);
  std::vector<GeneratedSource> CudaSources = Sources;
  // Editing an annotated header must rebuild: the dependency output names it, not its copy.
  Sources.insert(Sources.end(), HeaderCopies.begin(), HeaderCopies.end());
  int Status = compile(Compiler, C, Sources, NvccArgs, Folder.Path);
  if (Status == 0 && Options.Cost && Mode == WrapMode::Traced && !C.DependenciesOnly)
    reportLoopCosts(Compiler, C, CudaSources, NvccArgs);
  return Status;
}
