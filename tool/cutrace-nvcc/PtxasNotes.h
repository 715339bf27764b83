// What the wrapper reads in nvcc's own messages after a traced compile: ptxas's C7515 note when it
// serialized the wgmma of a traced twin (docs/annotations.md, "TRACE_SAMPLE").
#ifndef CUTRACE_NVCC_PTXASNOTES_H
#define CUTRACE_NVCC_PTXASNOTES_H

#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace cutrace {

/// The functions, as ptxas names them (mangled), whose wgmma ptxas serialized (C7515) and that
/// are traced twins (their name holds `cutrace_traced`); each once, in the order named.
std::vector<std::string> serializedTwins(llvm::StringRef CompilerMessages);

/// The wrapper's warning for them (empty when there are none).
std::string serializedTwinsWarning(const std::vector<std::string> &Twins);

} // namespace cutrace

#endif
