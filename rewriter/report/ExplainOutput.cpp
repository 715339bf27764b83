#include "report/ExplainOutput.h"

#include "pipeline/Write.h"
#include "report/ExplainHtml.h"
#include "report/ExplainTerminal.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace cutrace {

llvm::Expected<ExplainOutput> ExplainOutput::create(llvm::StringRef Where, std::string Dir) {
  ExplainOutput Out;
  Out.Terminal = Where == "terminal" || Where == "both";
  Out.Html = Where == "html" || Where == "both";
  Out.Dir = std::move(Dir);
  if (!Where.empty() && !Out.on())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--explain (or CUTRACE_EXPLAIN) must be terminal, html or "
                                   "both, not '" +
                                       Where.str() + "'");
  return Out;
}

void ExplainOutput::emit(const RunReport &Report, llvm::raw_ostream &Errs) {
  if (Terminal) { // rendered whole, then written once: stderr is unbuffered
    std::string Text;
    llvm::raw_string_ostream Buffer(Text);
    renderTerminal(Report, Buffer, terminalWantsColor(Errs));
    Errs << Buffer.str();
  }
  if (!Html)
    return;
  if (RunFolder.empty()) {
    llvm::Expected<std::string> Folder = createRunFolder(Dir);
    if (!Folder) {
      Errs << "trace-rewrite: error: explain report: " << llvm::toString(Folder.takeError())
           << "\n";
      return;
    }
    RunFolder = *Folder;
  }
  std::string Stem = llvm::sys::path::filename(Report.file()).str();
  llvm::SmallString<256> Path;
  for (unsigned N = 0; N == 0 || llvm::sys::fs::exists(Path); ++N) {
    Path = RunFolder;
    llvm::sys::path::append(Path, Stem + (N ? "_" + std::to_string(N) : "") + ".html");
  }
  std::string Html = renderHtml(Report);
  if (std::optional<WriteFailure> F = writeOutputs({{Path.str().str(), Html}})) {
    Errs << "trace-rewrite: error: " << F->Message << "\n";
    return;
  }
  if (llvm::Error E = pointLatest(Dir, RunFolder))
    Errs << "trace-rewrite: warning: explain report: " << llvm::toString(std::move(E)) << "\n";
  Errs << "trace-rewrite: explain report: " << Path << "\n";
}

} // namespace cutrace
