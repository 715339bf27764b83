#include "traced/TracedSamples.h"

#include "strip/Strip.h"
#include "traced/TracedTwins.h"

#include "llvm/ADT/SmallVector.h"
#include <algorithm>
#include <cctype>

namespace cutrace {

namespace {

bool inside(Span Outer, unsigned Offset) { return Offset >= Outer.Begin && Offset < Outer.End; }

/// Whether every #if in Text ends in it, and no #elif, #else or #endif of Text belongs to an #if
/// outside it: a copy of Text must not cut a conditional in two.
bool conditionalsBalanced(llvm::StringRef Text) {
  int Depth = 0;
  llvm::SmallVector<llvm::StringRef> Lines;
  Text.split(Lines, '\n');
  for (llvm::StringRef Line : Lines) {
    Line = Line.ltrim();
    if (!Line.consume_front("#"))
      continue;
    llvm::StringRef Word = Line.ltrim().take_while([](char C) { return isalpha(C); });
    if (Word == "if" || Word == "ifdef" || Word == "ifndef")
      ++Depth;
    else if (Word == "endif" && --Depth < 0)
      return false;
    else if ((Word == "elif" || Word == "else" || Word == "elifdef" || Word == "elifndef") &&
             Depth == 0)
      return false;
  }
  return Depth == 0;
}

/// Why the sample cannot be written (a problem added), or false: the model's problems were
/// reported where they were found, the passes' disagreement and a cut #if are reported here.
bool refused(llvm::StringRef Buffer, const Annotation &A, const AnnotationUse &U,
             std::vector<Problem> &Problems) {
  const std::string Macro = A.spelling().Macro.str();
  if (U.SampledDiffers)
    Problems.push_back({A.MacroOffset, Macro + " samples different code in the host and device "
                                               "compilations (an #if after it); put the #if "
                                               "inside what it samples"});
  else if (U.Sampled.End > A.Statement.End &&
           !conditionalsBalanced(Buffer.slice(A.Statement.End, U.Sampled.End)))
    Problems.push_back({A.MacroOffset, Macro + " samples code that an #if, #else or #endif "
                                               "divides (the directive is inside what it samples, "
                                               "its match outside); put the whole conditional "
                                               "inside, or the annotation inside the conditional"});
  else
    return U.Sampled.End <= U.Sampled.Begin || U.Sampled.End <= A.Statement.End ||
           hasErrors(U.Problems);
  return true;
}

/// The annotations inside Copied: their statements (what strip deletes from the copy). Adds a
/// problem for a range Copied ends but does not begin, and a warning when nothing in it records.
std::vector<Span> checkInside(const LineIndex &Lines, llvm::ArrayRef<Annotation> Annotations,
                              const Annotation &A, Span Copied,
                              llvm::ArrayRef<unsigned> TracedCalls, std::vector<Problem> &Problems) {
  const std::string Macro = A.spelling().Macro.str();
  std::vector<Span> Statements;
  bool Records = std::any_of(TracedCalls.begin(), TracedCalls.end(),
                             [&](unsigned At) { return inside(Copied, At); });
  for (const Annotation &Inner : Annotations) {
    if (!inside(Copied, Inner.MacroOffset))
      continue;
    Statements.push_back(Inner.Statement);
    Records |= isMarkerKind(Inner.Kind);
    if (Inner.Kind != AnnotationKind::RangeEnd)
      continue;
    bool StartedInside = std::any_of(Annotations.begin(), Annotations.end(), [&](auto &S) {
      return S.Kind == AnnotationKind::RangeStart && S.TokenName == Inner.TokenName &&
             inside(Copied, S.MacroOffset) && S.MacroOffset < Inner.MacroOffset;
    });
    if (!StartedInside)
      Problems.push_back(
          {Inner.MacroOffset,
           "TRACE_RANGE_END of a token started before the statement " + Macro + " samples (line " +
               std::to_string(Lines.line(A.MacroOffset)) +
               "): the executions the condition leaves out would never end its range; end it "
               "after the statement, or start it inside"});
  }
  if (!Records)
    Problems.push_back({A.MacroOffset,
                        Macro + " samples a statement that records nothing (no marker in it, no "
                                "call that reaches one): it has no effect",
                        Severity::Warning});
  return Statements;
}

} // namespace

void planSample(llvm::StringRef Buffer, const LineIndex &Lines, const TracedOptions &Options,
                llvm::ArrayRef<Annotation> Annotations, const Annotation &A,
                const AnnotationUse &U, llvm::ArrayRef<unsigned> TracedCalls,
                const std::vector<Edit> &CopyEdits, std::vector<Edit> &TwinEdits,
                std::vector<Problem> &Problems) {
  if (refused(Buffer, A, U, Problems)) {
    TwinEdits.push_back({A.Statement, ""}); // dropped, as strip drops it
    return;
  }
  // What the copy holds: from the annotation's ';' to the statement's end (a `#pragma unroll`
  // or a comment between them included), from the next line when only spaces follow the ';'.
  Span Copied{A.Statement.End, U.Sampled.End};
  unsigned LineEnd = Lines.lineEnd(Copied.Begin);
  if (LineEnd < Copied.End && Buffer.substr(Copied.Begin, LineEnd - Copied.Begin).trim().empty())
    Copied.Begin = LineEnd + 1;
  std::vector<Span> Statements = checkInside(Lines, Annotations, A, Copied, TracedCalls, Problems);
  if (U.SampledIssuesWgmma) // measured: docs/PERFORMANCE.md, section 9
    Problems.push_back(
        {A.MacroOffset,
         A.spelling().Macro.str() +
             " samples code that issues wgmma, which the traced build then holds twice: on CuTe's "
             "Hopper tutorial and CUTLASS's FP8 cooperative GEMM such a sample cost as much as "
             "recording every iteration or more, in the CTAs that record nothing too; time the "
             "kernel with recording off (CUTRACE=0) and on, and where the sample does not pay, "
             "record once per tile outside the k-loop instead",
         Severity::Warning});
  std::optional<Span> Cond = A.argWithRole(ArgRole::Condition);
  std::string Condition = Cond ? Buffer.substr(Cond->Begin, Cond->size()).str() : "true";
  TwinEdits.push_back({A.Statement, "if ((" + Condition + ")) {"});
  // An annotation that ends what is copied takes its line's newline: that stays outside the copy.
  std::vector<Span> Strip = planStripDeletions(Buffer, Statements);
  for (Span &D : Strip) {
    D.Begin = std::max(D.Begin, Copied.Begin);
    D.End = std::min(D.End, Copied.End);
  }
  std::vector<Edit> Deletions = lineKeepingDeletions(Buffer, Lines, Options, Strip);
  for (const Edit &E : CopyEdits)
    if (std::none_of(Deletions.begin(), Deletions.end(), [&](const Edit &D) {
          return E.Range.Begin < D.Range.End && D.Range.Begin < E.Range.End;
        }))
      Deletions.push_back(E);
  std::string File = lineFile(Options);
  unsigned RestEnd = Lines.lineEnd(Copied.End);
  bool CodeAfter = !Buffer.substr(Copied.End, RestEnd - Copied.End).trim().empty();
  std::string Plain = "} else {\n" + Lines.lineDirective(Lines.line(Copied.Begin), File) + "\n" +
                      padTo(Lines, Copied.Begin) + applyWithin(Buffer, Copied, Deletions) + "\n" +
                      padTo(Lines, U.Sampled.Begin) + "}\n" +
                      Lines.lineDirective(Lines.line(Copied.End), File) + "\n" +
                      (CodeAfter ? padTo(Lines, Copied.End) : "");
  // Samples that end together (TRACE_SAMPLE_REST in a block another one samples): the inner one,
  // planned later, closes first.
  for (Edit &E : TwinEdits)
    if (E.Range.Begin == Copied.End && E.Range.End == Copied.End) {
      E.Text = Plain + E.Text;
      return;
    }
  TwinEdits.push_back({{Copied.End, Copied.End}, std::move(Plain)});
}

} // namespace cutrace
