// trace-rewrite's options (tool/trace-rewrite/Options.h).
#include "Options.h"

#include "auto/AutoPlan.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <cutrace/output_files.h>

using namespace cutrace;
namespace cl = llvm::cl;

namespace trace_rewrite {

cl::OptionCategory Category("trace-rewrite options");

namespace {

cl::list<std::string> Files(cl::Positional, cl::desc("<file.cu>... [-- <compile command>]"),
                            cl::cat(Category));
cl::opt<std::string> Output("o",
                            cl::desc("Write the result to <file> ('-' = stdout, the default "
                                     "for one file)"),
                            cl::value_desc("file"), cl::cat(Category));
cl::opt<bool> InPlace("i", cl::desc("Rewrite the files in place"), cl::cat(Category));
cl::opt<std::string> BuildPath("p", cl::desc("Build directory holding compile_commands.json"),
                               cl::value_desc("dir"), cl::cat(Category));
cl::list<std::string> ExtraArgs("extra-arg", cl::desc("Extra argument for the Clang parse"),
                                cl::cat(Category));
cl::opt<std::string> CudaPath("cuda-path", cl::desc("CUDA installation (default: /usr/local/cuda)"),
                              cl::init("/usr/local/cuda"), cl::cat(Category));
cl::opt<std::string> GpuArch("cuda-gpu-arch",
                             cl::desc("GPU architectures of the device passes when the compile "
                                      "command names none, comma-separated (default: sm_90)"),
                             cl::init("sm_90"), cl::cat(Category));
cl::opt<RewriteMode> RunMode(
    cl::desc("Mode:"),
    cl::values(clEnumValN(RewriteMode::Strip, "strip", "Delete every annotation (default)"),
               clEnumValN(RewriteMode::Traced, "traced", "Expand annotations into recording code"),
               clEnumValN(RewriteMode::VerifyStrip, "verify-strip",
                          "Check the files obey every annotation rule and strip exactly")),
    cl::init(RewriteMode::Strip), cl::cat(Category));
cl::opt<std::string> Against("against",
                             cl::desc("With --verify-strip: require strip(FILE) to "
                                      "equal this file byte for byte"),
                             cl::value_desc("plain.cu"), cl::cat(Category));
cl::opt<bool> Strict("strict",
                     cl::desc("With --verify-strip: fail (exit 3) when a Clang pass "
                              "cannot parse the file, instead of running only the "
                              "lexical checks"),
                     cl::cat(Category));
cl::opt<bool> Verbose("v",
                      cl::desc("Also print the notes on code Clang 19 rejects and nvcc accepts "
                               "(known and harmless: the rewrite goes on)"),
                      cl::cat(Category));
cl::opt<std::string> MapPath("map",
                             cl::desc("With --traced: decode-map header to write "
                                      "(default: beside the output, named after it: "
                                      "-o out/k.traced.cu writes out/k.trace_map.h); JSON "
                                      "goes beside it"),
                             cl::value_desc("file"), cl::cat(Category));
cl::opt<unsigned> MaxEvents("max-events",
                            cl::desc("With --traced: events kept per row (default: 1024)"),
                            cl::init(1024), cl::cat(Category));
cl::opt<std::string> ClockKind("clock",
                               cl::desc("With --traced: clock64 | globaltimer (default: clock64)"),
                               cl::init("clock64"), cl::cat(Category));
cl::opt<std::string> Auto("auto",
                          cl::desc("With --traced: trace every kernel without annotations "
                                   "(a row per CTA, or per warp; docs/auto.md)"),
                          cl::value_desc("ctas|warps"), cl::ValueOptional, cl::cat(Category));
cl::list<std::string> AutoKernels("auto-kernels",
                                  cl::desc("With --auto: the kernels to trace, GLOB selects, "
                                           "-GLOB leaves out (comma-separated)"),
                                  cl::value_desc("GLOB,-GLOB"), cl::CommaSeparated,
                                  cl::cat(Category));
cl::opt<std::string> Explain("explain",
                             cl::desc("Report every stage and per-kernel before/after diffs: "
                                      "terminal (stderr), html or both (also CUTRACE_EXPLAIN)"),
                             cl::value_desc("terminal|html|both"), cl::ValueOptional,
                             cl::cat(Category));
cl::opt<std::string> ExplainDir("explain-dir",
                                cl::desc("Folder for HTML reports, one run folder each (also "
                                         "CUTRACE_EXPLAIN_DIR; default debug/explain)"),
                                cl::value_desc("dir"), cl::cat(Category));

} // namespace

std::vector<std::string> inputFiles() { return {Files.begin(), Files.end()}; }

void usageError(const llvm::Twine &Message) {
  llvm::errs() << "trace-rewrite: error: " << Message << "\n";
}

/// --explain[=where] wins over CUTRACE_EXPLAIN; --explain-dir over CUTRACE_EXPLAIN_DIR.
std::optional<ExplainOutput> explainOutput() {
  const char *Env = std::getenv("CUTRACE_EXPLAIN");
  std::string Where = Explain.getNumOccurrences()
                          ? (Explain.empty() ? "terminal" : Explain.getValue())
                      : Env ? Env
                            : "";
  const char *EnvDir = std::getenv("CUTRACE_EXPLAIN_DIR");
  std::string Dir = !ExplainDir.empty()   ? ExplainDir.getValue()
                    : (EnvDir && *EnvDir) ? EnvDir
                                          : "debug/explain";
  llvm::Expected<ExplainOutput> Out = ExplainOutput::create(Where, Dir);
  if (!Out) {
    usageError(llvm::toString(Out.takeError()));
    return std::nullopt;
  }
  return std::move(*Out);
}

/// -i writes each input once: one file named twice, or under two names (a hard link), would be
/// rewritten from a text the other rewrite replaced, or split from its link.
static bool inPlaceFilesDistinct() {
  if (!InPlace)
    return true;
  std::vector<std::string> Inputs(Files.begin(), Files.end());
  std::optional<OutputClash> Clash = find_output_clash({}, Inputs, /*outputs_may_be_inputs=*/true);
  if (!Clash)
    return true;
  if (Clash->why == OutputRefusal::twice)
    return usageError(describe_clash(*Clash, {}, Inputs) + "; -i rewrites each file once"), false;
  return usageError(describe_clash(*Clash, {}, Inputs)), false;
}

bool validateOptions() {
  if (Files.empty())
    return usageError("no input files (see --help)"), false;
  if (InPlace && !Output.empty())
    return usageError("-i and -o cannot be combined"), false;
  if (RunMode != RewriteMode::VerifyStrip && Files.size() > 1 && !InPlace)
    return usageError("several input files need -i (one output per file)"), false;
  if (RunMode == RewriteMode::Traced && InPlace)
    return usageError("--traced never rewrites its input; use -o"), false;
  if (!Against.empty() && (RunMode != RewriteMode::VerifyStrip || Files.size() != 1))
    return usageError("--against needs --verify-strip and exactly one file"), false;
  if (ClockKind != "clock64" && ClockKind != "globaltimer")
    return usageError("--clock must be clock64 or globaltimer"), false;
  if (MaxEvents == 0 || MaxEvents > (1u << 24))
    return usageError("--max-events must be between 1 and 16777216"), false;
  if (Auto.getNumOccurrences() && RunMode != RewriteMode::Traced)
    return usageError("--auto needs --traced"), false;
  if (Auto.getNumOccurrences() && !Auto.empty() && Auto != "ctas" && Auto != "warps")
    return usageError("--auto must be ctas or warps (default ctas), not '" + Auto + "'"), false;
  if (AutoKernels.getNumOccurrences() && !Auto.getNumOccurrences())
    return usageError("--auto-kernels needs --auto"), false;
  for (const std::string &Pattern : AutoKernels)
    if (std::optional<std::string> Problem = autoKernelPatternError(Pattern))
      return usageError("--auto-kernels pattern '" + Pattern + "': " + *Problem), false;
  return inPlaceFilesDistinct();
}

/// Strip needs no parse, so only the parsing modes check where CUDA is.
bool validateCompileSettings(const RewriteRequest &Request) {
  if (Request.Mode == RewriteMode::Strip)
    return true;
  if (std::optional<std::string> Problem = compileSettingsProblem(Request.Compile))
    return usageError(*Problem), false;
  return true;
}

RewriteRequest requestFor(const std::string &Path, std::vector<std::string> CommandTail) {
  RewriteRequest R;
  R.Mode = RunMode;
  R.Output = InPlace ? Path : Output.empty() ? "-" : Output.getValue();
  R.InPlace = InPlace;
  R.MapPath = MapPath;
  R.Against = Against;
  R.Strict = Strict;
  R.Verbose = Verbose;
  R.MaxEvents = MaxEvents;
  R.Clock = ClockKind;
  if (Auto.getNumOccurrences())
    R.Auto = Auto == "warps" ? AutoRows::Warps : AutoRows::Ctas;
  R.AutoKernels.assign(AutoKernels.begin(), AutoKernels.end());
  R.Compile.CudaPath = CudaPath;
  R.Compile.GpuArch = GpuArch;
  R.Compile.BuildPath = BuildPath;
  R.Compile.ExtraArgs.assign(ExtraArgs.begin(), ExtraArgs.end());
  R.Compile.CommandTail = std::move(CommandTail);
  return R;
}

/// `--traced -o -` writes the source to stdout but the decode map to files: say where, so they
/// are not found later by surprise in the working directory (docs/cli.md).
void noteMapBesideStdout(const RewriteResult &Result) {
  if (Result.Mode != RewriteMode::Traced || Result.Status != Ok || Output != "-" ||
      !MapPath.empty())
    return;
  std::vector<std::string> Maps;
  for (const PendingOutput &P : Result.Pending)
    if (P.IsMap)
      Maps.push_back("'" + P.Path + "'");
  if (!Maps.empty())
    llvm::errs() << "trace-rewrite: note: the traced source went to stdout; its decode map was "
                 << "written to " << llvm::join(Maps, " and ")
                 << " (choose the place with --map)\n";
}

} // namespace trace_rewrite
