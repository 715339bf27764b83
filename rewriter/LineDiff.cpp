#include "LineDiff.h"

#include <algorithm>

namespace cutrace {
namespace {

/// Lines with their terminators, so that a missing final newline or CRLF shows as a change.
std::vector<llvm::StringRef> splitKeepingEnds(llvm::StringRef Text) {
  std::vector<llvm::StringRef> Lines;
  while (!Text.empty()) {
    size_t NL = Text.find('\n');
    size_t Len = NL == llvm::StringRef::npos ? Text.size() : NL + 1;
    Lines.push_back(Text.substr(0, Len));
    Text = Text.substr(Len);
  }
  return Lines;
}

std::string display(llvm::StringRef Line) {
  std::string Out = Line.str();
  if (!Out.empty() && Out.back() == '\n')
    Out.pop_back();
  else
    Out += "\n\\ No newline at end of file";
  return Out;
}

} // namespace

std::vector<DiffLine> diffLines(llvm::StringRef OldText, llvm::StringRef NewText) {
  std::vector<llvm::StringRef> A = splitKeepingEnds(OldText), B = splitKeepingEnds(NewText);
  size_t Prefix = 0;
  while (Prefix < A.size() && Prefix < B.size() && A[Prefix] == B[Prefix])
    ++Prefix;
  size_t Suffix = 0;
  while (Suffix + Prefix < A.size() && Suffix + Prefix < B.size() &&
         A[A.size() - 1 - Suffix] == B[B.size() - 1 - Suffix])
    ++Suffix;
  size_t N = A.size() - Prefix - Suffix, M = B.size() - Prefix - Suffix;
  // LCS table over the differing middle only; the common ends are usually most of a file.
  std::vector<std::vector<unsigned>> L(N + 1, std::vector<unsigned>(M + 1, 0));
  for (size_t I = N; I-- > 0;)
    for (size_t J = M; J-- > 0;)
      L[I][J] =
          A[Prefix + I] == B[Prefix + J] ? L[I + 1][J + 1] + 1 : std::max(L[I + 1][J], L[I][J + 1]);
  std::vector<DiffLine> Out;
  unsigned OldNo = 0, NewNo = 0;
  auto Same = [&](llvm::StringRef T) {
    Out.push_back({DiffLine::Same, display(T), ++OldNo, ++NewNo});
  };
  for (size_t I = 0; I < Prefix; ++I)
    Same(A[I]);
  size_t I = 0, J = 0;
  while (I < N || J < M) {
    if (I < N && J < M && A[Prefix + I] == B[Prefix + J]) {
      Same(A[Prefix + I]);
      ++I, ++J;
    } else if (J < M && (I == N || L[I][J + 1] >= L[I + 1][J])) {
      Out.push_back({DiffLine::Added, display(B[Prefix + J++]), 0, ++NewNo});
    } else {
      Out.push_back({DiffLine::Removed, display(A[Prefix + I++]), ++OldNo, 0});
    }
  }
  for (size_t K = A.size() - Suffix; K < A.size(); ++K)
    Same(A[K]);
  return Out;
}

std::string unifiedDiff(llvm::StringRef Old, llvm::StringRef New, llvm::StringRef OldName,
                        llvm::StringRef NewName, unsigned Context) {
  if (Old == New)
    return "";
  std::vector<DiffLine> Lines = diffLines(Old, New);
  std::string Out = "--- " + OldName.str() + "\n+++ " + NewName.str() + "\n";
  std::vector<size_t> Changes;
  for (size_t K = 0; K < Lines.size(); ++K)
    if (Lines[K].What != DiffLine::Same)
      Changes.push_back(K);
  for (size_t C = 0; C < Changes.size();) {
    // A hunk takes every change closer than two contexts to the previous one.
    size_t Last = C;
    while (Last + 1 < Changes.size() && Changes[Last + 1] - Changes[Last] <= 2 * Context)
      ++Last;
    size_t Begin = Changes[C] >= Context ? Changes[C] - Context : 0;
    size_t End = std::min(Lines.size(), Changes[Last] + Context + 1);
    unsigned OldStart = 0, OldCount = 0, NewStart = 0, NewCount = 0;
    std::string Body;
    for (size_t K = Begin; K < End; ++K) {
      const DiffLine &D = Lines[K];
      char Mark = D.What == DiffLine::Same ? ' ' : D.What == DiffLine::Removed ? '-' : '+';
      if (D.What != DiffLine::Added && !OldCount++)
        OldStart = D.OldLine;
      if (D.What != DiffLine::Removed && !NewCount++)
        NewStart = D.NewLine;
      Body += Mark + D.Text + "\n";
    }
    Out += "@@ -" + std::to_string(OldStart) + "," + std::to_string(OldCount) + " +" +
           std::to_string(NewStart) + "," + std::to_string(NewCount) + " @@\n" + Body;
    C = Last + 1;
  }
  return Out;
}

} // namespace cutrace
