// trace-rewrite: strip cutrace annotations, verify they can be stripped exactly, or expand them
// into recording code. Argument parsing, exit codes and printing only; the pipeline is
// rewriter/pipeline/ (docs/design.md) and the --explain report rewriter/report/.
#include "Options.h"

#include "pipeline/Rewrite.h"
#include "report/RunReport.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>

using namespace cutrace;
using namespace trace_rewrite;
namespace cl = llvm::cl;

namespace {

/// Splits off everything after `--`: a compile command for the parse.
std::vector<const char *> splitDashDash(int Argc, const char **Argv,
                                        std::vector<std::string> &Tail) {
  std::vector<const char *> Own;
  for (int I = 0; I < Argc; ++I) {
    if (llvm::StringRef(Argv[I]) == "--") {
      Tail.assign(Argv + I + 1, Argv + Argc);
      break;
    }
    Own.push_back(Argv[I]);
  }
  return Own;
}

} // namespace

int main(int Argc, const char **Argv) {
  cl::HideUnrelatedOptions(Category);
  cl::SetVersionPrinter(
      [](llvm::raw_ostream &OS) { OS << "trace-rewrite (cutrace) " << CUTRACE_VERSION << "\n"; });
  std::vector<std::string> CommandTail;
  std::vector<const char *> Own = splitDashDash(Argc, Argv, CommandTail);
  if (!cl::ParseCommandLineOptions(
          static_cast<int>(Own.size()), Own.data(),
          "cutrace source rewriter\n\n"
          "  trace-rewrite kernel.cu [-o out.cu | -i]          strip annotations (default)\n"
          "  trace-rewrite --traced kernel.cu -o traced.cu     expand them into recording code\n"
          "  trace-rewrite --verify-strip kernel.cu...         pre-commit check\n\n"
          "A compile command after `--` (-- -I<dir> -D<macro> ...) gives the Clang passes the\n"
          "file's include directories and macros; -p <build dir> reads them from\n"
          "compile_commands.json.\n\n"
          "Exit status: 0 ok, 1 annotation or verification errors, 2 usage or I/O errors,\n"
          "3 the file could not be parsed. Nothing is written when the status is not 0.\n",
          &llvm::errs()))
    return UsageOrIo;
  if (!validateOptions())
    return UsageOrIo;
  std::optional<ExplainOutput> Explaining = explainOutput();
  if (!Explaining)
    return UsageOrIo;
  // Every file is planned before anything is written: one failing file leaves all untouched.
  std::vector<RewriteResult> Results;
  for (const std::string &Path : inputFiles()) {
    llvm::Expected<SourceFile> Input = readSource(Path);
    if (!Input) {
      usageError(llvm::toString(Input.takeError()));
      return UsageOrIo;
    }
    RewriteRequest Request = requestFor(Path, CommandTail);
    if (Results.empty() && !validateCompileSettings(Request))
      return UsageOrIo;
    Results.push_back(planRewrite(*Input, Request, llvm::errs()));
  }
  commitRewrites(Results, llvm::errs());
  int Worst = Ok;
  for (const RewriteResult &Result : Results) {
    noteMapBesideStdout(Result);
    if (!Result.AgainstDiff.empty())
      llvm::outs() << Result.AgainstDiff;
    if (Explaining->on())
      Explaining->emit(reportOf(Result), llvm::errs());
    Worst = std::max(Worst, Result.Status);
  }
  return Worst;
}
