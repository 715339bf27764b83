// The line diff (rewriter/pipeline/LineDiff.h) behind --against and the --explain regions: the same script
// as the textbook longest-common-subsequence walk on every small input, a valid script on any
// input, and memory that grows with the input, not with its square.
#include "pipeline/LineDiff.h"

#include <gtest/gtest.h>
#include <random>
#include <sys/resource.h>

using namespace cutrace;

namespace {

std::vector<std::string> linesOf(const std::string &Text) {
  std::vector<std::string> Lines;
  for (size_t Pos = 0; Pos < Text.size();) {
    size_t NL = Text.find('\n', Pos);
    size_t End = NL == std::string::npos ? Text.size() : NL + 1;
    Lines.push_back(Text.substr(Pos, End - Pos));
    Pos = End;
  }
  return Lines;
}

/// The n×m table diff the rewriter used before: common ends kept, then match when the lines are
/// equal, else add before removing whenever that keeps the common subsequence longest. The
/// reference for inputs small enough to afford it.
std::vector<std::pair<char, std::string>> tableDiff(const std::string &Old,
                                                    const std::string &New) {
  std::vector<std::string> A = linesOf(Old), B = linesOf(New);
  size_t Prefix = 0;
  while (Prefix < A.size() && Prefix < B.size() && A[Prefix] == B[Prefix])
    ++Prefix;
  size_t Suffix = 0;
  while (Suffix + Prefix < A.size() && Suffix + Prefix < B.size() &&
         A[A.size() - 1 - Suffix] == B[B.size() - 1 - Suffix])
    ++Suffix;
  size_t N = A.size() - Prefix - Suffix, M = B.size() - Prefix - Suffix;
  std::vector<std::vector<unsigned>> L(N + 1, std::vector<unsigned>(M + 1, 0));
  for (size_t I = N; I-- > 0;)
    for (size_t J = M; J-- > 0;)
      L[I][J] =
          A[Prefix + I] == B[Prefix + J] ? L[I + 1][J + 1] + 1 : std::max(L[I + 1][J], L[I][J + 1]);
  std::vector<std::pair<char, std::string>> Out;
  for (size_t I = 0; I < Prefix; ++I)
    Out.push_back({' ', A[I]});
  size_t I = 0, J = 0;
  while (I < N || J < M) {
    if (I < N && J < M && A[Prefix + I] == B[Prefix + J])
      Out.push_back({' ', A[Prefix + I++]}), ++J;
    else if (J < M && (I == N || L[I][J + 1] >= L[I + 1][J]))
      Out.push_back({'+', B[Prefix + J++]});
    else
      Out.push_back({'-', A[Prefix + I++]});
  }
  for (size_t K = A.size() - Suffix; K < A.size(); ++K)
    Out.push_back({' ', A[K]});
  return Out;
}

std::vector<std::pair<char, std::string>> script(const std::string &Old, const std::string &New) {
  std::vector<std::pair<char, std::string>> Out;
  for (const DiffLine &D : diffLines(Old, New)) {
    char Mark = D.What == DiffLine::Same ? ' ' : D.What == DiffLine::Added ? '+' : '-';
    std::string Text = D.Text;
    const std::string NoNewline = "\n\\ No newline at end of file";
    if (Text.size() >= NoNewline.size() &&
        Text.compare(Text.size() - NoNewline.size(), NoNewline.size(), NoNewline) == 0)
      Text.resize(Text.size() - NoNewline.size());
    else
      Text += "\n";
    Out.push_back({Mark, Text});
  }
  return Out;
}

/// Applying the script's kept and added lines gives New; its kept and removed lines give Old.
void expectValidScript(const std::string &Old, const std::string &New) {
  std::string FromKeptAndAdded, FromKeptAndRemoved;
  unsigned OldNo = 0, NewNo = 0;
  for (const DiffLine &D : diffLines(Old, New)) {
    if (D.What != DiffLine::Added) {
      ASSERT_EQ(D.OldLine, ++OldNo);
      FromKeptAndRemoved += D.Text + "\n";
    }
    if (D.What != DiffLine::Removed) {
      ASSERT_EQ(D.NewLine, ++NewNo);
      FromKeptAndAdded += D.Text + "\n";
    }
  }
  auto Joined = [](const std::string &Text) {
    std::string Out;
    for (const std::string &L : linesOf(Text))
      Out += (L.back() == '\n' ? L.substr(0, L.size() - 1) : L + "\n\\ No newline at end of file") +
             "\n";
    return Out;
  };
  EXPECT_EQ(FromKeptAndRemoved, Joined(Old));
  EXPECT_EQ(FromKeptAndAdded, Joined(New));
}

std::string randomText(std::mt19937 &Rng, unsigned Lines, unsigned Alphabet) {
  std::string Out;
  for (unsigned I = 0; I < Lines; ++I)
    Out += std::string(1, static_cast<char>('a' + Rng() % Alphabet)) +
           (Rng() % 8 == 0 ? "\r\n" : "\n");
  if (!Out.empty() && Rng() % 4 == 0)
    Out.pop_back();
  return Out;
}

long peakRssKb() {
  rusage U{};
  getrusage(RUSAGE_SELF, &U);
  return U.ru_maxrss;
}

} // namespace

TEST(LineDiff, SameScriptAsTheTableDiffOnRandomSmallInputs) {
  std::mt19937 Rng(12);
  for (unsigned Case = 0; Case < 3000; ++Case) {
    unsigned Alphabet = 1 + Case % 6;
    std::string Old = randomText(Rng, Rng() % 40, Alphabet);
    std::string New = Case % 3 ? randomText(Rng, Rng() % 40, Alphabet) : Old;
    if (Case % 3 == 0) // a few edits of Old, the usual shape
      for (unsigned E = 0; E < 1 + Rng() % 4 && !New.empty(); ++E)
        New.insert(New.begin() + Rng() % New.size(), static_cast<char>('a' + Rng() % Alphabet));
    ASSERT_EQ(script(Old, New), tableDiff(Old, New)) << "old:\n" << Old << "\nnew:\n" << New;
  }
}

TEST(LineDiff, SameScriptAsTheTableDiffUpToTwoThousandChangedLines) {
  std::string Old, New;
  for (unsigned I = 0; I < 1200; ++I) {
    Old += "line " + std::to_string(I) + (I % 3 ? "\n" : "\r\n");
    New += "line " + std::to_string(I) + (I % 5 ? "\n" : "\r\n");
  }
  ASSERT_EQ(script(Old, New), tableDiff(Old, New));
}

TEST(LineDiff, LargeDifferencesGiveAValidScript) {
  std::mt19937 Rng(7);
  for (unsigned Case = 0; Case < 6; ++Case) {
    std::string Old = randomText(Rng, 3000 + Rng() % 3000, 3 + Case % 20);
    std::string New = randomText(Rng, 3000 + Rng() % 3000, 3 + Case % 20);
    expectValidScript(Old, New);
  }
}

TEST(LineDiff, FilesDifferingOnlyInLineEndingsNeedMemoryLinearInTheirSize) {
  // 60 000 lines: the n×m table needed 14 GB and aborted; now each line is reported once.
  std::string Lf, Crlf;
  for (unsigned I = 0; I < 60000; ++I) {
    Lf += "  p[" + std::to_string(I) + "] = 1;\n";
    Crlf += "  p[" + std::to_string(I) + "] = 1;\r\n";
  }
  long Before = peakRssKb();
  std::vector<DiffLine> Lines = diffLines(Crlf, Lf);
  EXPECT_LT(peakRssKb() - Before, 200 * 1024);
  ASSERT_EQ(Lines.size(), 120000u);
  EXPECT_EQ(Lines.front().What, DiffLine::Added); // added before removed, as before
  EXPECT_EQ(Lines.back().What, DiffLine::Removed);
  std::string Diff = unifiedDiff(Crlf, Lf, "plain", "strip");
  EXPECT_EQ(std::count(Diff.begin(), Diff.end(), '\n'), 120003);
}

TEST(LineDiff, ScatteredChangesInAHugeFileKeepTheUniqueLines) {
  std::string Old, New;
  for (unsigned I = 0; I < 50000; ++I) {
    Old += "  p[" + std::to_string(I) + "] = 1;\n";
    New += "  p[" + std::to_string(I) + "] = 1;\n";
    if (I % 10 == 0)
      Old += "  TRACE_RECORD(\"r\");\n"; // 5 000 removed lines, more than an exact search takes
  }
  unsigned Removed = 0, Added = 0;
  for (const DiffLine &D : diffLines(Old, New)) {
    Removed += D.What == DiffLine::Removed;
    Added += D.What == DiffLine::Added;
  }
  EXPECT_EQ(Removed, 5000u);
  EXPECT_EQ(Added, 0u);
}
