// The rewrite report for a terminal: one status line per stage, then a unified diff (3 lines of
// context) per changed kernel, launch site or function, in ANSI colour when asked.
#ifndef CUTRACE_REWRITER_EXPLAINTERMINAL_H
#define CUTRACE_REWRITER_EXPLAINTERMINAL_H

#include "report/RunReport.h"
#include "llvm/Support/raw_ostream.h"

namespace cutrace {

/// Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org).
bool terminalWantsColor(llvm::raw_ostream &OS);

void renderTerminal(const RunReport &Report, llvm::raw_ostream &OS, bool Color);

} // namespace cutrace

#endif
