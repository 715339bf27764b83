// Strip rules (docs/strip.md) on the library directly, plus the property that inserting annotations
// into any never-annotated corpus file and stripping gives the file back.
#include "lex/AnnotationScanner.h"
#include "strip/Strip.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <random>
#include <sstream>
#include "support/tree_paths.h"

using namespace cutrace;
namespace fs = std::filesystem;

namespace {

std::string strip(const std::string &Text) {
  ScanResult Scan = scanAnnotations(Text);
  EXPECT_TRUE(Scan.Problems.empty()) << Scan.Problems.front().Message;
  return stripAnnotations(Text, Scan);
}

TEST(StripRules, AnnotationAloneOnItsLineRemovesTheWholeLine) {
  EXPECT_EQ(strip("{\n  a();\n  TRACE_RECORD(\"x\");\n  b();\n}\n"), "{\n  a();\n  b();\n}\n");
}

TEST(StripRules, TrailingLineCommentGoesWithTheAnnotationLine) {
  EXPECT_EQ(strip("{\n  TRACE_RECORD(\"x\"); // why\n  b();\n}\n"), "{\n  b();\n}\n");
}

TEST(StripRules, MultiLineAnnotationRemovesAllItsLines) {
  EXPECT_EQ(
      strip("{\n  TRACE_RANGE(\"x\",\n              \"lane\",\n              i);\n  b();\n}\n"),
      "{\n  b();\n}\n");
}

TEST(StripRules, InlineAnnotationRemovesSeparatingSpaceOnly) {
  EXPECT_EQ(strip("{\n  x = 1;   TRACE_RECORD(\"a\");\n}\n"), "{\n  x = 1;\n}\n");
}

TEST(StripRules, AnnotationBeforeCodeKeepsCodeAtItsColumn) {
  EXPECT_EQ(strip("{\n  TRACE_RECORD(\"a\");  x = 1;\n}\n"), "{\n  x = 1;\n}\n");
}

TEST(StripRules, TwoAnnotationsAroundCodeOnOneLine) {
  EXPECT_EQ(strip("{\n  TRACE_RECORD(\"a\"); x = 1; TRACE_RECORD(\"b\");\n}\n"),
            "{\n  x = 1;\n}\n");
}

TEST(StripRules, RangeStartDeclarationIsTheAnnotation) {
  EXPECT_EQ(
      strip("{\n  const auto t =\n      TRACE_RANGE_START(\"a\");\n  TRACE_RANGE_END(t);\n}\n"),
      "{\n}\n");
}

TEST(StripRules, SampleGoesWithItsLineAndTheSampledStatementStays) {
  EXPECT_EQ(strip("{\n  TRACE_SAMPLE(t % 8 == 0); // every 8th\n  for (;;) {\n    TRACE_RANGE(\"k\");"
                  "\n    f();\n  }\n}\n"),
            "{\n  for (;;) {\n    f();\n  }\n}\n");
}

TEST(StripRules, IncludeWithAContinuedCommentGoesWithAllItsLines) {
  // The comment's backslash splices the next line into it: that line is part of the directive.
  EXPECT_EQ(strip("#include \"cutrace/trace.h\" // note \\\nTRACE_RECORD(\"a\");\nint x;\n"),
            "int x;\n");
  EXPECT_EQ(strip("#include <cutrace/trace.h> // a \\  \r\n b\r\nint x;\r\n"), "int x;\r\n");
}

TEST(StripRules, LoneCarriageReturnEndsTheIncludeLine) {
  // The lexer ends a line at a lone '\r': what follows it is not part of the directive.
  std::string Once = strip("#include <cutrace/trace.h>\rint x; /* a\r\n b */\n");
  EXPECT_EQ(Once, "\rint x; /* a\r\n b */\n");
  EXPECT_EQ(strip(Once), Once);
}

TEST(StripRules, IncludeLineIsRemoved) {
  EXPECT_EQ(strip("#include <cutrace/trace.h>\n#include \"cutrace/trace.h\"\nint x;\n"),
            "int x;\n");
}

TEST(StripRules, InactivePreprocessorBranchesAreStripped) {
  EXPECT_EQ(strip("{\n#if 0\n  TRACE_RECORD(\"a\");\n#else\n  TRACE_RECORD(\"b\");\n#endif\n}\n"),
            "{\n#if 0\n#else\n#endif\n}\n");
}

TEST(StripRules, CrlfStaysCrlf) {
  EXPECT_EQ(strip("{\r\n  TRACE_RECORD(\"a\");\r\n  x = 1; TRACE_RECORD(\"b\");\r\n}\r\n"),
            "{\r\n  x = 1;\r\n}\r\n");
}

TEST(StripRules, MissingFinalNewlineStaysMissing) {
  EXPECT_EQ(strip("{\n  x = 1;\n}"), "{\n  x = 1;\n}");
  EXPECT_EQ(strip("void f() {\n  x = 1; }\nvoid g() { TRACE_RECORD(\"a\"); }"),
            "void f() {\n  x = 1; }\nvoid g() { }");
}

TEST(StripRules, CommentsAndStringsAreNotAnnotations) {
  std::string Text = "{\n  // TRACE_RECORD(\"a\");\n  s = \"TRACE_RECORD(\\\"b\\\");\";\n"
                     "  MY_TRACE_RECORD(\"c\");\n}\n";
  EXPECT_EQ(strip(Text), Text);
}

TEST(StripRules, StripIsIdempotent) {
  std::string Once =
      strip("{\n  TRACE_RECORD(\"a\"); x = 1; // c\n  TRACE_DAG(\"a\", \"b\");\n}\n");
  EXPECT_EQ(strip(Once), Once);
}

// ----- property: annotate any never-annotated file at random statement ends; strip restores it.

std::string readFile(const fs::path &P) {
  std::ifstream In(P, std::ios::binary);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

std::vector<fs::path> plainCorpus() {
  std::vector<fs::path> Files;
  for (const auto &E : fs::directory_iterator(fs::path(CUTRACE_TEST_INPUTS) / "strip"))
    if (E.path().string().size() > 8 &&
        E.path().string().compare(E.path().string().size() - 8, 8, "plain.cu") == 0)
      Files.push_back(E.path());
  std::sort(Files.begin(), Files.end());
  return Files;
}

/// Inserts annotation statements after lines ending in ';' or '{' (inside braces): alone on a
/// new line, or inline after the code, chosen at random.
std::string annotateRandomly(const std::string &Plain, std::mt19937 &Rng) {
  static const char *const Annotations[] = {
      "TRACE_RECORD(\"p\", 1);", "TRACE_RANGE(\"r\", \"lane\");", "TRACE_DAG(\"a\", \"b\");",
      "TRACE_RECORD(\"q\"); // note", "TRACE_SAMPLE(i % 8 == 0);"};
  std::string Out;
  int Depth = 0;
  bool InBlockComment = false;
  bool Continued = false; // this line is spliced to the one before (a `\` ended it)
  size_t Pos = 0;
  while (Pos < Plain.size()) {
    size_t NL = Plain.find('\n', Pos);
    size_t End = NL == std::string::npos ? Plain.size() : NL;
    std::string Line = Plain.substr(Pos, End - Pos);
    bool StartedInComment = InBlockComment;
    for (size_t I = 0; I + 1 < Line.size(); ++I)
      if (Line.compare(I, 2, InBlockComment ? "*/" : "/*") == 0)
        InBlockComment = !InBlockComment, ++I;
    for (char C : Line)
      Depth += C == '{' ? 1 : C == '}' ? -1 : 0;
    Out += Line;
    std::string Code = Line.substr(0, Line.find("//"));
    while (!Code.empty() && (Code.back() == ' ' || Code.back() == '\r'))
      Code.pop_back();
    bool Eligible = Depth > 0 && !Continued && !StartedInComment && !InBlockComment &&
                    !Code.empty() &&
                    (Code.back() == ';' || Code.back() == '{') &&
                    Code.find('#') == std::string::npos && Code.find("//") == std::string::npos &&
                    Line.find("//") == std::string::npos && Code.find('"') == std::string::npos &&
                    Line.find("/*") == std::string::npos && Line.find("*/") == std::string::npos &&
                    Line.find('\\') == std::string::npos;
    std::uniform_int_distribution<int> Pick(0, 5);
    int Choice = Pick(Rng);
    const char *A = Annotations[Choice % 5];
    bool Crlf = !Line.empty() && Line.back() == '\r';
    if (Eligible && Choice < 2) {
      // A new line holding only the annotation, after this one.
      if (NL != std::string::npos) {
        Out += "\n    ";
        Out += A;
        if (Crlf)
          Out += "\r";
      }
    } else if (Eligible && Choice == 2 && std::string(A).find("//") == std::string::npos) {
      Out.insert(Out.size() - (Crlf ? 1 : 0), std::string(" ") + A);
    }
    size_t Last = Line.find_last_not_of(" \t\r");
    Continued = Last != std::string::npos && Line[Last] == '\\';
    if (NL != std::string::npos)
      Out += "\n";
    Pos = End + 1;
  }
  return Out;
}

TEST(StripProperty, StripOfRandomlyAnnotatedCorpusFileIsTheOriginal) {
  std::mt19937 Rng(20261129);
  std::vector<fs::path> Files = plainCorpus();
  ASSERT_GE(Files.size(), 30u);
  unsigned Inserted = 0;
  for (const fs::path &F : Files) {
    std::string Plain = readFile(F);
    for (int Round = 0; Round < 5; ++Round) {
      std::string Annotated = annotateRandomly(Plain, Rng);
      Inserted += Annotated != Plain;
      ScanResult Scan = scanAnnotations(Annotated);
      std::string Stripped = stripAnnotations(Annotated, Scan);
      ASSERT_EQ(Stripped, Plain) << F << " round " << Round << "\nannotated:\n" << Annotated;
    }
  }
  EXPECT_GT(Inserted, Files.size()) << "the generator must actually insert annotations";
}

} // namespace

// ----- property: the lexical stage never crashes and strip stays idempotent on damaged input
// (truncated files, unbalanced parentheses, stray quotes): strip must work on anything.

TEST(StripProperty, DamagedInputNeverCrashesAndStripIsIdempotent) {
  std::mt19937 Rng(7);
  std::vector<fs::path> Files = plainCorpus();
  ASSERT_FALSE(Files.empty());
  static const char *const Noise[] = {"TRACE_RECORD(", ")", "\"", "'", "/*", "*/", "//",
                                      "\n",            "{", "}", "#if 0\n", "TRACE_RANGE(\"x\");",
                                      "auto t = TRACE_RANGE_START(\"s\");", "\\\n", "R\"(", ";"};
  unsigned Clean = 0;
  for (int Round = 0; Round < 400; ++Round) {
    std::string Text = readFile(Files[Round % Files.size()]);
    std::uniform_int_distribution<size_t> At(0, Text.size());
    std::uniform_int_distribution<int> Pick(0, int(std::size(Noise)) - 1);
    for (int Edit = 0; Edit < 6; ++Edit)
      Text.insert(At(Rng), Noise[Pick(Rng)]);
    Text.resize(At(Rng)); // truncated anywhere
    ScanResult Scan = scanAnnotations(Text);
    std::string Once = stripAnnotations(Text, Scan);
    if (!Scan.Problems.empty())
      continue; // strip refuses such files; nothing more to hold
    ++Clean;
    ScanResult Again = scanAnnotations(Once);
    EXPECT_EQ(stripAnnotations(Once, Again), Once) << "round " << Round;
  }
  EXPECT_GT(Clean, 20u) << "most damaged files should still be strippable";
}
