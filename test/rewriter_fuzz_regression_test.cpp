// Inputs fuzz_strip found (fuzz/regressions/strip/, docs/reliability.md), replayed here so a
// change to the strip rules that breaks one fails the unit tests, not only a fuzz run: each is
// checked against fuzz_strip's properties, and the two cases the fuzzer found in the include rules
// against what strip makes of them.
#include "lex/AnnotationScanner.h"
#include "strip/Strip.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include "support/tree_paths.h"

using namespace cutrace;
namespace fs = std::filesystem;

namespace {

const fs::path kRegressions = fs::path(CUTRACE_FUZZ_REGRESSIONS) / "strip";

std::string readFile(const fs::path &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::ostringstream Text;
  Text << In.rdbuf();
  return Text.str();
}

std::string regression(const char *Name) {
  const fs::path Path = kRegressions / Name;
  EXPECT_TRUE(fs::exists(Path)) << Path;
  return readFile(Path);
}

// fuzz_strip's properties (fuzz/fuzz_strip.cpp) on one input.
void expectStripProperties(const std::string &Text, const std::string &Name) {
  const ScanResult Scan = scanAnnotations(Text);
  const std::vector<Span> Deletions = planStripDeletions(Text, strippedStatements(Scan));
  unsigned Previous = 0;
  for (const Span &D : Deletions) {
    EXPECT_TRUE(D.Begin >= Previous && D.Begin <= D.End && D.End <= Text.size())
        << Name << ": deletion [" << D.Begin << ", " << D.End << ")";
    Previous = D.End;
  }
  const std::string Stripped = stripAnnotations(Text, Scan);
  EXPECT_LE(Stripped.size(), Text.size()) << Name;
  EXPECT_EQ(Stripped, applyDeletions(Text, Deletions)) << Name;
  if (!hasErrors(Scan.Problems))
    EXPECT_EQ(stripAnnotations(Stripped, scanAnnotations(Stripped)), Stripped)
        << Name << ": strip is not idempotent on its own output";
}

TEST(StripFuzzRegressions, EveryKeptInputKeepsTheFuzzersProperties) {
  size_t Inputs = 0;
  for (const fs::directory_entry &E : fs::directory_iterator(kRegressions)) {
    expectStripProperties(readFile(E.path()), E.path().filename().string());
    ++Inputs;
  }
  EXPECT_GE(Inputs, 5u); // the folder was found and holds the inputs kept so far
}

// `#include "cutrace/trace.h" // note \` continues its comment onto the next line: strip used to
// delete the first line only, and the continued line became code (a file-scope annotation).
TEST(StripFuzzRegressions, IncludeWhoseCommentIsContinuedByABackslash) {
  const std::string Text = regression("include_comment_continued_by_backslash.cu");
  const ScanResult Scan = scanAnnotations(Text);
  EXPECT_FALSE(hasErrors(Scan.Problems));
  EXPECT_EQ(stripAnnotations(Text, Scan), "");
  expectStripProperties(Text, "include_comment_continued_by_backslash.cu");
}

// `TRACE_RECORD("a");#include "cutrace/trace.h"`: deleting the annotation would leave the '#'
// first on its line, a directive the file never had. The scan refuses it, saying where.
TEST(StripFuzzRegressions, IncludeRightAfterAnAnnotationOnItsLineIsRefused) {
  const std::string Text = regression("include_right_after_annotation.cu");
  const ScanResult Scan = scanAnnotations(Text);
  ASSERT_TRUE(hasErrors(Scan.Problems));
  EXPECT_NE(Scan.Problems.front().Message.find("'#' right after an annotation"), std::string::npos)
      << Scan.Problems.front().Message;
  expectStripProperties(Text, "include_right_after_annotation.cu");
}

} // namespace
