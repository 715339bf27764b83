#include "PtxasNotes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace cutrace {

std::vector<std::string> serializedTwins(llvm::StringRef CompilerMessages) {
  std::vector<std::string> Twins;
  llvm::SmallVector<llvm::StringRef> Lines;
  CompilerMessages.split(Lines, '\n');
  for (llvm::StringRef Line : Lines) {
    if (!Line.contains("(C7515)") || !Line.contains("serialized"))
      continue;
    // "... in the function '<mangled name>'"
    size_t Open = Line.rfind("function '");
    if (Open == llvm::StringRef::npos)
      continue;
    llvm::StringRef Name = Line.substr(Open + 10);
    Name = Name.take_until([](char C) { return C == '\''; });
    if (Name.contains("cutrace_traced") && !llvm::is_contained(Twins, Name))
      Twins.push_back(Name.str());
  }
  return Twins;
}

std::string serializedTwinsWarning(const std::vector<std::string> &Twins) {
  if (Twins.empty())
    return "";
  std::string Text = "cutrace-nvcc: warning: ptxas serialized the wgmma instructions of " +
                     std::to_string(Twins.size()) +
                     (Twins.size() == 1 ? " traced twin" : " traced twins") +
                     " (C7515 above): recording there costs more than its markers, and the "
                     "timeline shows a slower kernel than the plain build runs. A TRACE_SAMPLE "
                     "whose code writes wgmma accumulators that live on after it causes this: "
                     "start the sample where the accumulators are declared (TRACE_SAMPLE_REST; "
                     "docs/annotations.md, \"TRACE_SAMPLE\"). The twin";
  Text += Twins.size() == 1 ? ": " : "s: ";
  for (size_t I = 0; I < Twins.size(); ++I)
    Text += (I ? ", " : "") + Twins[I].substr(0, 120) + (Twins[I].size() > 120 ? "..." : "");
  return Text + "\n";
}

} // namespace cutrace
