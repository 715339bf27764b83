#include "pipeline/Write.h"

#include "llvm/Support/raw_ostream.h"
#include <cutrace/output_files.h>

namespace cutrace {

std::optional<WriteFailure> writeOutputs(llvm::ArrayRef<OutputFile> Outputs) {
  llvm::outs().flush(); // stdout outputs are written to its descriptor, after anything printed
  OutputSet Set;
  for (const OutputFile &Out : Outputs)
    if (std::optional<OutputFailure> F =
            Set.add(Out.Path, std::string_view(Out.Text.data(), Out.Text.size())))
      return WriteFailure{F->path, F->message};
  if (std::optional<OutputFailure> F = Set.commit())
    return WriteFailure{F->path, F->message};
  return std::nullopt;
}

} // namespace cutrace
