// Prints problems as the compiler would (file:line:col, source line, caret) through clang's
// DiagnosticsEngine, over the buffer that was checked.
#ifndef CUTRACE_REWRITER_DIAGNOSTICPRINTER_H
#define CUTRACE_REWRITER_DIAGNOSTICPRINTER_H

#include "lex/Problem.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"
#include <memory>

namespace cutrace {

class DiagnosticPrinter {
public:
  DiagnosticPrinter(llvm::StringRef FileName, llvm::StringRef Buffer, llvm::raw_ostream &OS);
  ~DiagnosticPrinter();
  void print(const Problem &P);
  /// "file:line:col" of an offset, for messages that are not diagnostics.
  std::string location(unsigned Offset) const;

private:
  struct State;
  std::unique_ptr<State> S;
};

} // namespace cutrace

#endif
