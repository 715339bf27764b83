#include "strip/Verify.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include <algorithm>
#include <set>

namespace cutrace {

std::optional<std::string> placementError(const AnnotationUse &Use) {
  const char *ByReference = "annotations in a lambda need its default capture to be by reference "
                            "([&]), so that they reach the enclosing function's group";
  switch (Use.Side) {
  case FunctionSide::Global:
    if (Use.InLambda && !Use.LambdaByRef)
      return std::string(ByReference);
    return std::nullopt;
  case FunctionSide::Device:
    if (!Use.Unroutable.empty())
      return "annotations in " + Use.Unroutable +
             " are not supported: its calls cannot be sent to a traced twin (only named "
             "functions and operator() can); call a member function holding them from it";
    if (Use.InLambda && !Use.LambdaByRef)
      return std::string(ByReference);
    return std::nullopt;
  case FunctionSide::Host:
    return "annotations are only allowed in __global__ and __device__ functions (found in host "
           "function '" +
           Use.FunctionName + "')";
  case FunctionSide::Lambda:
    return "annotations in a lambda are only allowed inside a __global__ or __device__ function";
  case FunctionSide::None:
    break;
  }
  return "annotation must be a whole statement inside a function body";
}

namespace {

/// The union of Spans as sorted, disjoint spans, so that membership is a binary search.
std::vector<Span> unionOf(std::vector<Span> Spans) {
  std::sort(Spans.begin(), Spans.end(),
            [](const Span &A, const Span &B) { return A.Begin < B.Begin; });
  std::vector<Span> Union;
  for (const Span &S : Spans) {
    if (S.End <= S.Begin)
      continue;
    if (!Union.empty() && S.Begin <= Union.back().End)
      Union.back().End = std::max(Union.back().End, S.End);
    else
      Union.push_back(S);
  }
  return Union;
}

bool insideAny(unsigned Offset, const std::vector<Span> &Union) {
  auto After = std::upper_bound(Union.begin(), Union.end(), Offset,
                                [](unsigned O, const Span &S) { return O < S.Begin; });
  return After != Union.begin() && Offset < (After - 1)->End;
}

/// True when a lexical annotation starts inside Body (Annotations are in file order).
bool holdsAnnotation(const std::vector<Annotation> &Annotations, Span Body) {
  auto First =
      std::lower_bound(Annotations.begin(), Annotations.end(), Body.Begin,
                       [](const Annotation &A, unsigned Offset) { return A.MacroOffset < Offset; });
  return First != Annotations.end() && First->MacroOffset < Body.End;
}

void checkPass(const ScanResult &Scan, const ParseOutcome &Pass, Verdict &V) {
  std::string Name = compat::passName(Pass.Pass).str();
  if (!Pass.Ran)
    V.Unchecked.push_back({Name, Pass.FailureReason});
  std::vector<Span> AnnotatedBodies;
  for (const AnnotationUse &Use : Pass.Model.Uses) {
    AnnotatedBodies.push_back(Use.FunctionBody);
    if (std::optional<std::string> Error = placementError(Use))
      V.Problems.push_back({Use.MacroOffset, *Error});
    V.Problems.insert(V.Problems.end(), Use.Problems.begin(), Use.Problems.end());
  }
  // An annotation Clang could not turn into a call leaves no AnnotationUse; its own text and the
  // function holding it are still annotated code, so their errors are not "outside".
  for (const Annotation &A : Scan.Annotations)
    AnnotatedBodies.push_back(A.Call);
  for (const Span &Body : Pass.Model.FunctionBodies)
    if (holdsAnnotation(Scan.Annotations, Body))
      AnnotatedBodies.push_back(Body);
  std::vector<Span> Bodies = unionOf(std::move(AnnotatedBodies));
  for (const ClangDiagnostic &D : Pass.Diagnostics) {
    if (D.Level != Severity::Error || compat::isClangOnlyError(D.Message))
      continue;
    if (D.InMainFile && insideAny(D.Offset, Bodies))
      V.Problems.push_back({D.Offset, D.Message + " [" + Name + " pass]"});
    else if (Pass.Ran) // a pass that stopped early is reported once, by its reason
      ++V.IgnoredClangErrors;
  }
}

} // namespace

/// Clang's "use of undeclared identifier 'TRACE_RECORD'" on every annotation says nothing of the
/// cause, a file that never includes the header declaring them: one note after the first says so.
static void addMissingIncludeNote(std::vector<Problem> &Problems) {
  constexpr llvm::StringLiteral Undeclared = "use of undeclared identifier '";
  for (size_t I = 0; I < Problems.size(); ++I) {
    llvm::StringRef Message = Problems[I].Message;
    if (!Message.consume_front(Undeclared) || !findSpelling(Message.take_until([](char C) {
          return C == '\'';
        })))
      continue;
    Problems.insert(Problems.begin() + I + 1,
                    {Problems[I].Offset,
                     "the annotations are declared in <cutrace/trace.h>: add "
                     "`#include <cutrace/trace.h>` to this file",
                     Severity::Note});
    return;
  }
}

Verdict verifyAnnotations(const ScanResult &Scan, llvm::ArrayRef<ParseOutcome> Passes) {
  Verdict V;
  V.Problems = Scan.Problems;
  for (const ParseOutcome &Pass : Passes)
    checkPass(Scan, Pass, V);
  // Both passes usually see the same annotation, and the lexical scan and a pass can find one
  // fault (`i++`: an increment, and a write the AST check names): report it once, as first
  // found. The key is the complaint before its details (`: why`, `(...)`, `[pass]`).
  std::set<std::pair<unsigned, std::string>> Seen;
  std::vector<Problem> Unique;
  for (Problem &P : V.Problems) {
    size_t End = P.Message.size();
    for (const char *Detail : {": ", " (", " ["})
      End = std::min(End, P.Message.find(Detail));
    std::string Key = P.Message.substr(0, End);
    if (Seen.insert({P.Offset, Key}).second)
      Unique.push_back(std::move(P));
  }
  std::stable_sort(Unique.begin(), Unique.end(),
                   [](const Problem &A, const Problem &B) { return A.Offset < B.Offset; });
  V.Problems = std::move(Unique);
  addMissingIncludeNote(V.Problems);
  return V;
}

} // namespace cutrace
