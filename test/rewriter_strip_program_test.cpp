// Strip never changes the program (docs/strip.md, "What strip refuses and why"): for the shapes
// that could make the stripped file compile to something else than the annotated one with the
// no-op header, strip either deletes exactly what keeps the program, or the lexical scan refuses
// the file with a located error (so every mode, verify-strip included, stops before writing).
#include "lex/AnnotationScanner.h"
#include "lex/LineIndex.h"
#include "strip/Strip.h"

#include <gtest/gtest.h>
#include <string>

using namespace cutrace;

namespace {

/// Every problem of the scan as "<line>:<col>: <message>", one a line.
std::string problems(const std::string &Text) {
  LineIndex Lines(Text);
  std::string Out;
  for (const Problem &P : scanAnnotations(Text).Problems)
    Out += std::to_string(Lines.line(P.Offset)) + ":" + std::to_string(Lines.column(P.Offset)) +
           ": " + P.Message + "\n";
  return Out;
}

std::string strip(const std::string &Text) {
  ScanResult Scan = scanAnnotations(Text);
  EXPECT_TRUE(Scan.Problems.empty()) << Scan.Problems.front().Message;
  return stripAnnotations(Text, Scan);
}

const std::string SoleBody = "annotation may not be the sole, unbraced body of ";
const std::string LabelAtEnd = "annotation after a label may not end its block: stripping it "
                               "would leave the label without a statement\n";
const std::string ByMacro = "annotation may not be produced by the expansion of macro ";

// ----- line splices

TEST(StripSplices, CommentSpliceAfterAnnotationKeepsTheContinuedLineInTheComment) {
  // Deleting the line would turn `x[0] = 1;`, which the comment swallows, into code.
  EXPECT_EQ(strip("{\n  TRACE_RECORD(\"a\"); // note \\\n  x[0] = 1;\n}\n"),
            "{\n  // note \\\n  x[0] = 1;\n}\n");
}

TEST(StripSplices, BackslashSpacesNewlineIsASpliceToo) {
  EXPECT_EQ(strip("{\n  TRACE_RECORD(\"a\"); // n \\ \t\n  x[0] = 1;\n}\n"),
            "{\n  // n \\ \t\n  x[0] = 1;\n}\n");
  EXPECT_EQ(strip("{\r\n  TRACE_RECORD(\"a\"); // n \\  \r\n  x[0] = 1;\r\n}\r\n"),
            "{\r\n  // n \\  \r\n  x[0] = 1;\r\n}\r\n");
}

TEST(StripSplices, SpliceOnTheLineBeforeKeepsTheAnnotationsLine) {
  // Deleting the line would join `x = 1; \` to the directive after it.
  EXPECT_EQ(strip("{\n  x = 1; \\\n  TRACE_RECORD(\"a\");\n#if 1\n#endif\n}\n"),
            "{\n  x = 1; \\\n  \n#if 1\n#endif\n}\n");
}

TEST(StripSplices, AnnotationRightAfterASpliceIsNotASplitName) {
  // The lexer spells `TRACE_RECORD` from the backslash before it; the name is still whole.
  EXPECT_EQ(strip("{\n  x = 1; \\\nTRACE_RECORD(\"a\");\n#if 1\n#endif\n}\n"),
            "{\n  x = 1; \\\n\n#if 1\n#endif\n}\n");
}

TEST(StripSplices, SpliceInsideTheAnnotationGoesWithIt) {
  EXPECT_EQ(strip("{\n  TRACE_RECORD(\"a\", \\\n    1);\n  TRACE_RECORD(\"b\"\\\r\n  );\n}\n"),
            "{\n}\n");
}

TEST(StripSplices, BlockCommentClosingOnALaterLineStays) {
  EXPECT_EQ(strip("{\n  TRACE_RECORD(\"a\"); /* x\n  */ y = 1;\n}\n"),
            "{\n  /* x\n  */ y = 1;\n}\n");
}

TEST(StripSplices, LoneCarriageReturnEndsTheTrailingComment) {
  // `// c` ends at the '\r': `x[0] = 1;` after it is code, and stays.
  EXPECT_EQ(strip("{\n  TRACE_RECORD(\"a\"); // c\r  x[0] = 1;\n}\n"),
            "{\n  // c\r  x[0] = 1;\n}\n");
  EXPECT_EQ(strip("{\n  TRACE_RECORD(\"a\"); // c \\\r  x[0] = 1;\n}\n"), "{\n}\n");
}

TEST(StripSplices, TrigraphIsNotASplice) {
  // C++17 has no trigraphs (nvcc warns "trigraph ??/ ignored"): the comment ends with its line.
  EXPECT_EQ(strip("{\n  TRACE_RECORD(\"a\"); // ?\?/\n  x = 1;\n}\n"), "{\n  x = 1;\n}\n");
}

TEST(StripSplices, IncludeLineGoesWithABlockCommentThatRunsOnFromIt) {
  // The comment is one space to the preprocessor, so what follows it is on the directive's line;
  // deleting up to the first newline would free the comment's rest as code.
  EXPECT_EQ(strip("#include <cutrace/trace.h> /* a\n b */\nint y;\n"), "int y;\n");
  EXPECT_EQ(strip("#include <cutrace/trace.h> // a /* b\nint y;\n"), "int y;\n");
}

TEST(StripSplices, IncludeLineOpeningAnUnterminatedCommentStripsIdempotently) {
  // Found by fuzz_strip: everything after the '/*' is comment, annotations too.
  const std::string Text = "#include <cutrace/trace.h>/*\n  TRACE_RECORD(\"a\");\n  x = 1;\n";
  const std::string Once = strip(Text);
  EXPECT_EQ(Once, "");
  EXPECT_EQ(strip(Once), Once);
}

// ----- sole bodies in every preprocessor configuration

TEST(SoleBody, AnnotationInTheElseBranchOfAnIfdefIsRefused) {
  EXPECT_EQ(problems("void f(int *x) {\n  if (x[0])\n#ifdef A\n    x[2] = 2;\n#else\n"
                     "    TRACE_RECORD(\"a\");\n#endif\n  x[1] = 1;\n}\n"),
            "6:5: " + SoleBody + "'if'\n");
}

TEST(SoleBody, AnnotationAfterAnIfdefWithoutElseIsRefused) {
  EXPECT_EQ(problems("void f(int *x) {\n  if (x[0])\n#ifdef A\n    x[2] = 2;\n#endif\n"
                     "    TRACE_RECORD(\"a\");\n}\n"),
            "6:5: " + SoleBody + "'if'\n");
}

TEST(SoleBody, AnnotationAfterACompleteIfdefElseWithStatementsIsAccepted) {
  EXPECT_EQ(problems("void f(int *x) {\n  if (x[0])\n#ifdef A\n    x[2] = 2;\n#else\n"
                     "    x[3] = 3;\n#endif\n  TRACE_RECORD(\"a\");\n}\n"),
            "");
}

TEST(SoleBody, CodeCommentedOutWithIfZeroPrecedesNothing) {
  EXPECT_EQ(problems("void f(int *x) {\n  x[0] = 1;\n#if 0\n  if (x[1])\n#endif\n"
                     "  TRACE_RECORD(\"a\");\n}\n"),
            "");
  EXPECT_EQ(problems("void f(int *x) {\n  x[0] = 1;\n#if DEBUG\n  if (x[1])\n#endif\n"
                     "  TRACE_RECORD(\"a\");\n}\n"),
            "6:3: " + SoleBody + "'if'\n");
}

TEST(SoleBody, NestedGroupsAreWalkedBranchByBranch) {
  const std::string Head = "void f(int *x) {\n  if (x[0])\n#if A\n    x[1] = 1;\n#elif B\n#if C\n";
  EXPECT_EQ(problems(Head + "    x[1] = 3;\n#else\n    x[1] = 4;\n#endif\n#else\n    x[1] = 2;\n"
                            "#endif\n  TRACE_RECORD(\"a\");\n}\n"),
            "");
  EXPECT_EQ(problems(Head + "    x[1] = 3;\n#endif\n#else\n    x[1] = 2;\n#endif\n"
                            "  TRACE_RECORD(\"a\");\n}\n"),
            "12:3: " + SoleBody + "'if'\n");
}

TEST(SoleBody, EveryElifBranchAndPragmasAreLookedThrough) {
  EXPECT_EQ(problems("void f(int *x) {\n  while (x[0])\n#if A\n    x[0]--;\n#elif B\n"
                     "#pragma unroll\n    TRACE_RECORD(\"a\");\n#else\n    x[0] = 0;\n#endif\n}\n"),
            "7:5: " + SoleBody + "'while'\n");
}

TEST(SoleBody, DigraphDirectivesAreDirectives) {
  EXPECT_EQ(problems("void f(int *x) <%\n  if (x[0])\n%:if A\n    x[1] = 1;\n%:endif\n"
                     "    TRACE_RECORD(\"a\");\n%>\n"),
            "6:5: " + SoleBody + "'if'\n");
}

TEST(SoleBody, IfConstexprRangeForAndElseIfAreStatementsWithABody) {
  EXPECT_EQ(problems("void f(int *x) {\n  if constexpr (1)\n    TRACE_RECORD(\"a\");\n}\n"),
            "3:5: " + SoleBody + "'if'\n");
  EXPECT_EQ(problems("void f(int *x) {\n  for (int e : {1, 2})\n    TRACE_RECORD(\"a\");\n}\n"),
            "3:5: " + SoleBody + "'for'\n");
  EXPECT_EQ(problems("void f(int *x) {\n  if (x[0]) x[1] = 1;\n  else if (x[2])\n"
                     "    TRACE_RECORD(\"a\");\n}\n"),
            "4:5: " + SoleBody + "'if'\n");
}

TEST(SoleBody, AnnotationRightAfterAPragmaIsRefusedInAnyConfiguration) {
  // `#pragma unroll` applies to the next statement: the annotation, until strip removes it.
  const std::string Pragma = "annotation may not follow a '#pragma' directly: the pragma would "
                             "apply to the next statement once strip removes the annotation\n";
  EXPECT_EQ(problems("void f(int *x) {\n#pragma unroll 1\n  TRACE_RECORD(\"a\");\n"
                     "  for (int i = 0; i < 4; ++i) x[i] = i;\n}\n"),
            "3:3: " + Pragma);
  EXPECT_EQ(problems("void f(int *x) {\n#pragma unroll 1\n#ifdef A\n  x[0] = 0;\n#endif\n"
                     "  TRACE_RECORD(\"a\");\n}\n"),
            "6:3: " + Pragma);
  EXPECT_EQ(problems("void f(int *x) {\n  _Pragma(\"unroll 1\")\n  TRACE_RECORD(\"a\");\n}\n"),
            "3:3: " + Pragma);
  EXPECT_EQ(
      problems("void f(int *x) {\n#pragma unroll 1\n  x[0] = 0;\n  TRACE_RECORD(\"a\");\n}\n"), "");
}

// ----- labels

TEST(Labels, LabelledAnnotationAsSoleBodyIsRefused) {
  EXPECT_EQ(
      problems("void f(int *x) {\n  if (x[0])\n  lbl: TRACE_RECORD(\"a\");\n  x[1] = 1;\n}\n"),
      "3:8: " + SoleBody + "'if'\n");
  EXPECT_EQ(
      problems("void f(int *x) {\n  switch (x[0])\n  case 1: default: TRACE_RECORD(\"a\");\n}\n"),
      "3:20: " + SoleBody + "'switch'\n");
}

TEST(Labels, LabelledAnnotationBeforeTheClosingBraceIsRefused) {
  EXPECT_EQ(problems("void f(int *x) {\n  goto done;\ndone: TRACE_RECORD(\"a\");\n}\n"),
            "3:7: " + LabelAtEnd);
  EXPECT_EQ(problems("void f(int *x) {\n  switch (x[0]) {\n  case A::B + 1: TRACE_RECORD(\"a\");\n"
                     "  TRACE_RECORD(\"b\");\n  }\n}\n"),
            "3:18: " + LabelAtEnd);
}

TEST(Labels, LabelledAnnotationBeforeABraceInOneConfigurationIsRefused) {
  EXPECT_EQ(problems("void f(int *x) {\n  switch (x[0]) {\n  default: TRACE_RECORD(\"a\");\n"
                     "#ifdef A\n    x[0] = 1;\n#endif\n  }\n}\n"),
            "3:12: " + LabelAtEnd);
}

TEST(Labels, LabelledAnnotationFollowedByAStatementInEveryConfigurationIsAccepted) {
  EXPECT_EQ(problems("void f(int *x) {\n  switch (x[0]) {\n  default: TRACE_RECORD(\"a\");\n"
                     "#if A\n    x[0] = 1;\n#elif B\n#if C\n    x[0] = 3;\n#else\n    x[0] = 4;\n"
                     "#endif\n#else\n    x[0] = 2;\n#endif\n  }\n}\n"),
            "");
  EXPECT_EQ(problems("void f(int *x) {\n  switch (x[0]) {\n  default: TRACE_RECORD(\"a\");\n"
                     "#if A\n    x[0] = 1;\n#elif B\n#if C\n    x[0] = 3;\n#endif\n#else\n"
                     "    x[0] = 2;\n#endif\n  }\n}\n"),
            "3:12: " + LabelAtEnd);
}

TEST(Labels, LabelledAnnotationFollowedByAStatementOrLabelIsStripped) {
  EXPECT_EQ(strip("void f(int *x) {\n  switch (x[0]) {\n  case 1: TRACE_RECORD(\"a\");\n"
                  "  case 2: TRACE_RECORD(\"b\"); x[0] = 1;\n  }\n}\n"),
            "void f(int *x) {\n  switch (x[0]) {\n  case 1:\n  case 2: x[0] = 1;\n  }\n}\n");
}

TEST(Labels, StrippingNeverGluesALabelsColonToTheNextToken) {
  // `lbl:::f()` would read as `lbl` `::` `:f`; `case 1::>` as the digraph `:>`.
  EXPECT_EQ(strip("void f() {\nlbl: TRACE_RECORD(\"a\");::g();\n}\n"),
            "void f() {\nlbl: ::g();\n}\n");
  EXPECT_EQ(strip("void f() {\nlbl:TRACE_RECORD(\"a\");::g();\n}\n"),
            "void f() {\nlbl:;::g();\n}\n");
}

// ----- annotations produced by the file's own macros

TEST(MacroOrigin, TokenPastingIntoAnAnnotationNameIsRefused) {
  EXPECT_EQ(problems("#define CAT(a,b) a##b\nvoid f() {\n  CAT(TRACE_,RECORD)(\"a\");\n}\n"),
            "3:3: " + ByMacro + "'CAT'\n");
  // Forwarded to the macro that pastes, and split anywhere.
  EXPECT_EQ(problems("#define CAT(a,b) CAT_(a,b)\n#define CAT_(a,b) a ## b\nvoid f() {\n"
                     "  CAT(TR,ACE_DAG)(\"a\", \"b\");\n}\n"),
            "4:3: " + ByMacro + "'CAT'\n");
}

TEST(MacroOrigin, PiecesFromObjectLikeMacrosAreSeenThroughThem) {
  EXPECT_EQ(problems("#define CAT(a,b) CAT_(a,b)\n#define CAT_(a,b) a##b\n#define P TRACE_\n"
                     "#define Q RANGE\nvoid f() {\n  CAT(P, Q)(\"a\");\n}\n"),
            "6:3: " + ByMacro + "'CAT'\n");
}

TEST(MacroOrigin, PastingInTheReplacementListIsRefused) {
  EXPECT_EQ(problems("#define MARK(k) TRACE_ ## k\nvoid f() {\n  MARK(RECORD)(\"a\");\n}\n"),
            "3:3: " + ByMacro + "'MARK'\n");
}

TEST(MacroOrigin, AliasesOfAliasesAreRefused) {
  EXPECT_EQ(problems("#define R1 TRACE_RECORD\n#define R2 R1\nvoid f() {\n  R2(\"a\");\n}\n"),
            "4:3: " + ByMacro + "'R2'\n");
}

TEST(MacroOrigin, AnAnnotationNamePassedToAMacroIsRefused) {
  EXPECT_EQ(problems("#define CALL(f, a) f(a)\nvoid f() {\n  CALL(TRACE_RECORD, \"a\");\n}\n"),
            "3:3: " + ByMacro + "'CALL'\n");
}

TEST(MacroOrigin, LookalikeNamesInReplacementListsAreNotAnnotations) {
  EXPECT_EQ(
      problems("#define MY_TRACE_RECORD(v) ((v) + 1)\n#define TWICE(v) MY_TRACE_RECORD(v) * 2\n"
               "void f(int *x) {\n  x[0] = TWICE(x[1]);\n}\n"),
      "");
}

TEST(MacroOrigin, PastingMacrosWithUnrelatedArgumentsAreAccepted) {
  EXPECT_EQ(problems("#define CAT(a,b) a##b\nvoid f(int *x) {\n  int CAT(my, var) = 1;\n"
                     "  TRACE_RECORD(\"a\", CAT(my, var));\n}\n"),
            "");
}

TEST(MacroOrigin, TheFileMayDefineAnAnnotationOnlyAsAnEmptyMacro) {
  EXPECT_EQ(
      problems("#ifndef TRACE_RECORD\n#define TRACE_RECORD(...)\n#endif\n#define TRACE_DAG\n"), "");
  EXPECT_EQ(problems("#define TRACE_RECORD(...) x[0]++\n"),
            "1:9: the file may define TRACE_RECORD only as an empty macro: strip deletes its uses, "
            "so a definition that expands to code would change the program\n");
  EXPECT_EQ(problems("#define TRACE_RANGE ::other::range\n"),
            "1:9: the file may define TRACE_RANGE only as an empty macro: strip deletes its uses, "
            "so a definition that expands to code would change the program\n");
}

} // namespace
