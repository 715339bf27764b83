#include "pipeline/DiagnosticPrinter.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/LangOptions.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "llvm/Support/MemoryBuffer.h"
#include <cstdlib>

namespace cutrace {

struct DiagnosticPrinter::State {
  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> Options{new clang::DiagnosticOptions()};
  clang::TextDiagnosticPrinter Printer;
  clang::DiagnosticsEngine Engine;
  clang::FileManager Files{clang::FileSystemOptions()};
  clang::SourceManager Sources;
  clang::FileID File;

  State(llvm::StringRef Name, llvm::StringRef Buffer, llvm::raw_ostream &OS)
      : Printer(OS, Options.get()),
        Engine(new clang::DiagnosticIDs(), Options.get(), &Printer, /*ShouldOwnClient=*/false),
        Sources(Engine, Files) {
    Options->ShowColors = OS.has_colors() && !std::getenv("NO_COLOR");
    File = Sources.createFileID(llvm::MemoryBuffer::getMemBufferCopy(Buffer, Name));
    Sources.setMainFileID(File);
    Printer.BeginSourceFile(clang::LangOptions(), nullptr);
  }
};

DiagnosticPrinter::DiagnosticPrinter(llvm::StringRef FileName, llvm::StringRef Buffer,
                                     llvm::raw_ostream &OS)
    : S(std::make_unique<State>(FileName, Buffer, OS)) {}

DiagnosticPrinter::~DiagnosticPrinter() { S->Printer.EndSourceFile(); }

void DiagnosticPrinter::print(const Problem &P) {
  clang::DiagnosticsEngine::Level Level =
      P.Level == Severity::Error     ? clang::DiagnosticsEngine::Error
      : P.Level == Severity::Warning ? clang::DiagnosticsEngine::Warning
                                     : clang::DiagnosticsEngine::Note;
  unsigned ID = S->Engine.getCustomDiagID(Level, "%0");
  // Clang drops a note that follows no shown diagnostic; ours stand alone.
  if (Level == clang::DiagnosticsEngine::Note)
    S->Engine.setLastDiagnosticIgnored(false);
  clang::SourceLocation Loc = S->Sources.getLocForStartOfFile(S->File).getLocWithOffset(P.Offset);
  S->Engine.Report(Loc, ID) << P.Message;
}

std::string DiagnosticPrinter::location(unsigned Offset) const {
  clang::SourceLocation Loc = S->Sources.getLocForStartOfFile(S->File).getLocWithOffset(Offset);
  clang::PresumedLoc P = S->Sources.getPresumedLoc(Loc);
  return std::string(P.getFilename()) + ":" + std::to_string(P.getLine()) + ":" +
         std::to_string(P.getColumn());
}

} // namespace cutrace
