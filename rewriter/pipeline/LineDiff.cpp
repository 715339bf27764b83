#include "pipeline/LineDiff.h"

#include "llvm/ADT/DenseMap.h"
#include <algorithm>
#include <cstdint>

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

/// Past this many differing lines in one stretch, a minimal diff costs more than it shows.
constexpr long MaxExactEdits = 2000;

using LineIds = std::vector<uint32_t>;

/// One step of the edit script, in order: a line kept, a line of New added, a line of Old removed.
enum class Step : char { Same, Added, Removed };

/// The script of the longest-common-subsequence diff that walks from the start, keeps a matching
/// line when it can and otherwise adds before it removes, found with Myers' O((n+m)·d) search
/// instead of an n×m table. Run backwards from the ends, the search tells for any point how many
/// edits remain, which is all the forward walk needs. False when more than MaxExactEdits.
bool exactScript(const uint32_t *A, long N, const uint32_t *B, long M, std::vector<Step> &Out) {
  // Furthest[d²+d+k]: the highest x' reached on diagonal k = x' - y' with d edits, where
  // (x', y') = (N - x, M - y) counts from the ends; Unreached where no such point is in the grid.
  constexpr int32_t Unreached = -1;
  std::vector<int32_t> V(2 * MaxExactEdits + 3, Unreached), Furthest;
  const long Mid = MaxExactEdits + 1;
  long D = -1;
  for (long E = 0; E <= MaxExactEdits && D < 0; ++E) {
    for (long K = -E; K <= E; K += 2) {
      long X = E == 0 ? 0 : Unreached;
      if (E > 0 && K < E && V[Mid + K + 1] != Unreached && V[Mid + K + 1] - K <= M)
        X = V[Mid + K + 1]; // one more line of B
      if (E > 0 && K > -E && V[Mid + K - 1] != Unreached && V[Mid + K - 1] + 1 <= N)
        X = std::max<long>(X, V[Mid + K - 1] + 1); // one more line of A
      if (X != Unreached) {
        long Y = X - K;
        while (X < N && Y < M && A[N - 1 - X] == B[M - 1 - Y])
          ++X, ++Y;
        if (X == N && Y == M)
          D = E;
      }
      V[Mid + K] = static_cast<int32_t>(X);
    }
    Furthest.insert(Furthest.end(), V.begin() + Mid - E, V.begin() + Mid + E + 1);
  }
  if (D < 0)
    return false;
  // True when (X, Y) in forward coordinates is at most Edits edits from the end.
  auto Within = [&](long X, long Y, long Edits) {
    long Xr = N - X, K = Xr - (M - Y);
    if ((Edits + K) % 2 != 0)
      --Edits;
    if (Edits < 0 || K < -Edits || K > Edits)
      return false;
    int32_t Reached = Furthest[Edits * Edits + Edits + K];
    return Reached != Unreached && Xr <= Reached;
  };
  long X = 0, Y = 0, Left = D;
  while (X < N || Y < M) {
    if (X < N && Y < M && A[X] == B[Y]) {
      Out.push_back(Step::Same);
      ++X, ++Y;
    } else if (Y < M && (X == N || Within(X, Y + 1, Left - 1))) {
      Out.push_back(Step::Added);
      ++Y, --Left;
    } else {
      Out.push_back(Step::Removed);
      ++X, --Left;
    }
  }
  return true;
}

/// Everything in New added, then everything in Old removed: what the walk gives when no line
/// is shared.
void replaceScript(long N, long M, std::vector<Step> &Out) {
  Out.insert(Out.end(), M, Step::Added);
  Out.insert(Out.end(), N, Step::Removed);
}

/// Lines that occur exactly once in A and once in B, as (index in A, index in B), longest chain
/// increasing in both (patience diff's anchors).
std::vector<std::pair<long, long>> uniqueAnchors(const uint32_t *A, long N, const uint32_t *B,
                                                 long M) {
  llvm::DenseMap<uint32_t, std::pair<long, long>> CountA, CountB; // id -> (count, index)
  for (long I = 0; I < N; ++I) {
    auto &C = CountA[A[I]];
    C = {C.first + 1, I};
  }
  for (long J = 0; J < M; ++J) {
    auto &C = CountB[B[J]];
    C = {C.first + 1, J};
  }
  std::vector<std::pair<long, long>> Pairs;
  for (long I = 0; I < N; ++I) {
    auto InA = CountA.find(A[I]);
    auto InB = CountB.find(A[I]);
    if (InA->second.first == 1 && InB != CountB.end() && InB->second.first == 1)
      Pairs.push_back({I, InB->second.second});
  }
  // Longest increasing subsequence of the B indices, in O(p log p).
  std::vector<long> Tails, Prev(Pairs.size(), -1);
  for (long P = 0; P < static_cast<long>(Pairs.size()); ++P) {
    auto It = std::lower_bound(Tails.begin(), Tails.end(), Pairs[P].second,
                               [&](long T, long J) { return Pairs[T].second < J; });
    if (It != Tails.begin())
      Prev[P] = *(It - 1);
    if (It == Tails.end())
      Tails.push_back(P);
    else
      *It = P;
  }
  std::vector<std::pair<long, long>> Chain;
  for (long P = Tails.empty() ? -1 : Tails.back(); P >= 0; P = Prev[P])
    Chain.push_back(Pairs[P]);
  std::reverse(Chain.begin(), Chain.end());
  return Chain;
}

/// The script for A against B: exact while the difference is small, otherwise split at lines
/// unique to both and solved piecewise, a stretch with no such line becoming one replacement.
/// Every level costs O((n+m)·MaxExactEdits) and there are at most three, so time stays linear.
void script(const uint32_t *A, long N, const uint32_t *B, long M, int Depth,
            std::vector<Step> &Out) {
  long Prefix = 0;
  while (Prefix < N && Prefix < M && A[Prefix] == B[Prefix])
    ++Prefix;
  long Suffix = 0;
  while (Suffix + Prefix < N && Suffix + Prefix < M && A[N - 1 - Suffix] == B[M - 1 - Suffix])
    ++Suffix;
  Out.insert(Out.end(), Prefix, Step::Same);
  A += Prefix, B += Prefix, N -= Prefix + Suffix, M -= Prefix + Suffix;
  if (N == 0 || M == 0 || !exactScript(A, N, B, M, Out)) {
    std::vector<std::pair<long, long>> Anchors =
        N && M && Depth < 3 ? uniqueAnchors(A, N, B, M) : std::vector<std::pair<long, long>>();
    if (Anchors.empty()) {
      replaceScript(N, M, Out);
    } else {
      long I = 0, J = 0;
      for (auto [AI, BJ] : Anchors) {
        script(A + I, AI - I, B + J, BJ - J, Depth + 1, Out);
        Out.push_back(Step::Same);
        I = AI + 1, J = BJ + 1;
      }
      script(A + I, N - I, B + J, M - J, Depth + 1, Out);
    }
  }
  Out.insert(Out.end(), Suffix, Step::Same);
}

} // namespace

std::vector<DiffLine> diffLines(llvm::StringRef OldText, llvm::StringRef NewText) {
  std::vector<llvm::StringRef> A = splitKeepingEnds(OldText), B = splitKeepingEnds(NewText);
  // Lines as small integers: the search compares them many times.
  llvm::DenseMap<llvm::StringRef, uint32_t> Ids;
  LineIds IdA, IdB;
  for (llvm::StringRef L : A)
    IdA.push_back(Ids.try_emplace(L, Ids.size()).first->second);
  for (llvm::StringRef L : B)
    IdB.push_back(Ids.try_emplace(L, Ids.size()).first->second);
  std::vector<Step> Steps;
  Steps.reserve(A.size() + B.size());
  script(IdA.data(), IdA.size(), IdB.data(), IdB.size(), 0, Steps);
  std::vector<DiffLine> Out;
  Out.reserve(Steps.size());
  unsigned OldNo = 0, NewNo = 0;
  for (Step S : Steps) {
    if (S == Step::Same) {
      Out.push_back({DiffLine::Same, display(A[OldNo]), OldNo + 1, NewNo + 1});
      ++OldNo, ++NewNo;
    } else if (S == Step::Added) {
      Out.push_back({DiffLine::Added, display(B[NewNo]), 0, NewNo + 1});
      ++NewNo;
    } else {
      Out.push_back({DiffLine::Removed, display(A[OldNo]), OldNo + 1, 0});
      ++OldNo;
    }
  }
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
