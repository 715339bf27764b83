#include "lex/Edit.h"

#include <algorithm>

namespace cutrace {

std::vector<Edit> deletionEdits(const std::vector<Span> &Deletions) {
  std::vector<Edit> Edits;
  for (const Span &D : Deletions)
    Edits.push_back({D, ""});
  return Edits;
}

llvm::Expected<std::string> applyEdits(llvm::StringRef Buffer, std::vector<Edit> Edits) {
  // At one offset an insertion goes before a replacement that starts there.
  std::stable_sort(Edits.begin(), Edits.end(), [](const Edit &A, const Edit &B) {
    if (A.Range.Begin != B.Range.Begin)
      return A.Range.Begin < B.Range.Begin;
    return A.Range.size() == 0 && B.Range.size() != 0;
  });
  std::string Out;
  unsigned Pos = 0;
  for (const Edit &E : Edits) {
    if (E.Range.Begin < Pos)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "internal error: overlapping edits at offset %u",
                                     E.Range.Begin);
    Out.append(Buffer.begin() + Pos, Buffer.begin() + E.Range.Begin);
    Out += E.Text;
    Pos = E.Range.End;
  }
  Out.append(Buffer.begin() + Pos, Buffer.end());
  return Out;
}

} // namespace cutrace
