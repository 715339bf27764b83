// The lexical rules of docs/annotations.md ("Checked in every mode, without a parse") on inputs
// that break the raw token stream in ways the corpus files do not: each case reports exactly one
// located error, which stops every mode before anything is written.
#include "lex/AnnotationScanner.h"

#include <gtest/gtest.h>
#include <string>

using namespace cutrace;

namespace {

/// The only problem the scan reports, as "<offset>: <message>", or a description of what it found.
std::string onlyProblem(const std::string &Text) {
  ScanResult Scan = scanAnnotations(Text);
  if (Scan.Problems.size() != 1)
    return std::to_string(Scan.Problems.size()) + " problems";
  return std::to_string(Scan.Problems[0].Offset) + ": " + Scan.Problems[0].Message;
}

std::string kernel(const std::string &Statement) {
  return "__global__ void k(int *x) {\n  " + Statement + "\n}\n";
}
constexpr unsigned StatementOffset = 30; // where kernel() puts the statement

TEST(ScanRules, ParenthesisRightAfterDirectivesIsNotAStatementOwner) {
  // `)` closes a `(` that is the first code token: nothing comes before it (read out of bounds).
  EXPECT_EQ(onlyProblem("#x\n({)TRACE_RECORD(\"a\");\n"),
            "6: annotation must be a whole statement inside a function body");
  EXPECT_EQ(onlyProblem("(\n)TRACE_RECORD(\"a\");\n"),
            "3: annotation must be a whole statement inside a function body");
}

TEST(ScanRules, EmptyArgumentIsReportedAtItsSeparator) {
  EXPECT_EQ(onlyProblem(kernel("TRACE_RECORD(,);")),
            std::to_string(StatementOffset + 13) + ": name of TRACE_RECORD is empty");
  EXPECT_EQ(onlyProblem(kernel("TRACE_RECORD(\"a\",);")),
            std::to_string(StatementOffset + 17) + ": payload of TRACE_RECORD is empty");
  EXPECT_EQ(onlyProblem(kernel("TRACE_RANGE(\"a\",,1);")),
            std::to_string(StatementOffset + 16) + ": lane of TRACE_RANGE is empty");
  EXPECT_EQ(onlyProblem(kernel("TRACE_GROUP(\"g\", /* lead */ );")),
            std::to_string(StatementOffset + 28) + ": lead of TRACE_GROUP is empty");
}

TEST(ScanRules, NoArgumentsIsAnArgumentCountError) {
  EXPECT_EQ(onlyProblem(kernel("TRACE_RECORD();")),
            std::to_string(StatementOffset) + ": TRACE_RECORD takes 1 to 3 arguments");
}

TEST(ScanRules, NamesAndLanesArePlainOrU8Literals) {
  const std::string Message =
      " must be a plain or u8 string literal (L, u and U literals are not accepted)";
  EXPECT_EQ(onlyProblem(kernel("TRACE_RECORD(L\"w\");")),
            std::to_string(StatementOffset + 13) + ": name of TRACE_RECORD" + Message);
  EXPECT_EQ(onlyProblem(kernel("TRACE_RANGE(\"r\", u\"lane\");")),
            std::to_string(StatementOffset + 17) + ": lane of TRACE_RANGE" + Message);
  EXPECT_EQ(onlyProblem(kernel("TRACE_DAG(\"a\", \"b\" U\"c\");")),
            std::to_string(StatementOffset + 15) + ": destination of TRACE_DAG" + Message);
  EXPECT_EQ(onlyProblem(kernel("TRACE_RECORD(LR\"(w)\");")),
            std::to_string(StatementOffset + 13) + ": name of TRACE_RECORD" + Message);

  ScanResult Accepted = scanAnnotations(
      kernel("TRACE_RECORD(u8\"a\" \"b\", 1, R\"(lane)\"); TRACE_RANGE(u8R\"(r)\");"));
  EXPECT_TRUE(Accepted.Problems.empty());
  EXPECT_EQ(Accepted.Annotations.size(), 2u);
}

TEST(ScanRules, MacroNameSplitByLineContinuationIsRejected) {
  const std::string Message =
      ": annotation name TRACE_RECORD may not be split by a line continuation";
  EXPECT_EQ(onlyProblem(kernel("TRACE_RE\\\nCORD(\"a\");")),
            std::to_string(StatementOffset) + Message);
  EXPECT_EQ(onlyProblem(kernel("TRACE_RE\\\r\nCORD(\"a\");")),
            std::to_string(StatementOffset) + Message);
  EXPECT_EQ(onlyProblem(kernel("TRACE_\\  \nRE\\\nCORD(\"a\");")),
            std::to_string(StatementOffset) + Message);
  // A name that only looks like an annotation once joined is not one.
  EXPECT_TRUE(scanAnnotations(kernel("MY_TRACE_RE\\\nCORD(\"a\");")).Problems.empty());
  // A continuation between the name and its '(' changes nothing.
  ScanResult Split = scanAnnotations(kernel("TRACE_RECORD\\\n(\"a\");"));
  EXPECT_TRUE(Split.Problems.empty());
  EXPECT_EQ(Split.Annotations.size(), 1u);
}

} // namespace

TEST(ScanRules, MissingClosingParenthesisIsNamedWhereTheStatementEnds) {
  // `;` at the annotation's top level: the `)` is missing, whatever closes later.
  EXPECT_EQ(onlyProblem(kernel("TRACE_RECORD(\"a\";")),
            std::to_string(StatementOffset + 16) +
                ": TRACE_RECORD is missing its closing parenthesis");
  EXPECT_EQ(onlyProblem(kernel("TRACE_RECORD(\"a\", x[0];")),
            std::to_string(StatementOffset + 22) +
                ": TRACE_RECORD is missing its closing parenthesis");
}

TEST(ScanRules, HashRightAfterAnnotationWouldBecomeADirective) {
  // Strip would leave `  #include ...` at the start of the line: a directive the file never had.
  EXPECT_EQ(onlyProblem(kernel("TRACE_RECORD(\"a\");#include \"cutrace/trace.h\"")),
            std::to_string(StatementOffset + 18) +
                ": '#' right after an annotation would start a preprocessor directive once strip "
                "removes the annotation; put it on a line of its own");
  // NUL, form feed and vertical tab are whitespace to the lexer: the '#' behind them would be
  // the line's first token just the same (found by fuzz_strip: strip was not idempotent).
  EXPECT_EQ(onlyProblem(kernel(std::string("TRACE_RECORD(\"a\");\0\f\v#include \"x.h\"", 35))),
            std::to_string(StatementOffset + 21) +
                ": '#' right after an annotation would start a preprocessor directive once strip "
                "removes the annotation; put it on a line of its own");
}
