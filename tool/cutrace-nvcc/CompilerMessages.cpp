#include "CompilerMessages.h"

#include "llvm/ADT/StringSet.h"
#include <regex>

namespace cutrace {

std::string withoutRepeatedWarnings(llvm::StringRef CompilerMessages) {
  static const std::regex Warning(R"(^\S.*\(\d+\): warning)");
  llvm::StringSet<> Seen;
  std::string Kept;
  llvm::StringRef Rest = CompilerMessages;
  while (!Rest.empty()) {
    // A block ends after its blank line (or at the end): "\n\n" stays with the block.
    size_t End = Rest.find("\n\n");
    End = End == llvm::StringRef::npos ? Rest.size() : End + 2;
    llvm::StringRef Block = Rest.take_front(End);
    Rest = Rest.drop_front(End);
    bool IsWarning = std::regex_search(Block.begin(), Block.end(), Warning);
    if (IsWarning && !Seen.insert(Block).second)
      continue;
    Kept += Block.str();
  }
  return Kept;
}

std::string missingRuntimeNote(llvm::StringRef CompilerMessages) {
  if (!CompilerMessages.contains("undefined reference to `cutrace::") &&
      !CompilerMessages.contains("undefined reference to `cutrace_"))
    return "";
  return "cutrace-nvcc: note: objects compiled traced call the cutrace runtime "
         "(cutrace::registerTwin and others), and this link does not have it: link with "
         "cutrace-nvcc in traced mode (CUTRACE_MODE=traced, the default), or add the libraries "
         "`cutrace-nvcc --cutrace-libs` prints (CMake: cutrace_instrument() links "
         "cutrace::cutrace)\n";
}

} // namespace cutrace
