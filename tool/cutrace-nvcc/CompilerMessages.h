// What the wrapper does with nvcc's messages after a compile or link it ran: a traced copy holds
// each kernel twice (original and twin), so nvcc says each of the user's warnings twice; a link
// of traced objects without the runtime fails on cutrace's symbols, which the wrapper can explain.
#ifndef CUTRACE_NVCC_COMPILERMESSAGES_H
#define CUTRACE_NVCC_COMPILERMESSAGES_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace cutrace {

/// The messages with each repeated warning block (`file(line): warning ...` up to the next blank
/// line, identical to an earlier one) left out; everything else as it was.
std::string withoutRepeatedWarnings(llvm::StringRef CompilerMessages);

/// A note when a link failed on cutrace's own symbols (`undefined reference to
/// cutrace::registerTwin`): why, and what to add. Empty otherwise.
std::string missingRuntimeNote(llvm::StringRef CompilerMessages);

} // namespace cutrace

#endif
