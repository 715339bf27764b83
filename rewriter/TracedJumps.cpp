#include "TracedJumps.h"

#include <algorithm>

namespace cutrace {

namespace {

bool declaresObject(AnnotationKind K) {
  return isScopedRangeKind(K) || K == AnnotationKind::RangeStart;
}

/// Offset is in Block after the annotation at Declared: in the scope of what it declares.
bool inScopeOf(unsigned Offset, const AnnotationUse &U) {
  return U.Block.Begin < Offset && Offset < U.Block.End && Offset > U.MacroOffset;
}

} // namespace

void checkJumpsOverScopeObjects(const SourceModel &Model,
                                const std::vector<const AnnotationUse *> &Uses,
                                const LineIndex &Lines, std::vector<Problem> &Problems) {
  for (const AnnotationUse *U : Uses) {
    if (!declaresObject(U->Kind) || U->Block.End <= U->Block.Begin)
      continue;
    for (const Jump &J : Model.Jumps) {
      if (!inScopeOf(J.To, *U) || inScopeOf(J.From, *U))
        continue;
      if (J.IsCase && std::count(U->LaterCaseLabels.begin(), U->LaterCaseLabels.end(), J.To))
        continue; // the switch check reports it
      std::string Macro = spellingOf(U->Kind).Macro.str();
      std::string By = J.IsCase ? "the case label at line " + std::to_string(Lines.line(J.To))
                                : "the goto at line " + std::to_string(Lines.line(J.From));
      Problems.push_back(
          {U->MacroOffset,
           Macro + " would be jumped over by " + By +
               ": the traced build declares a scope object here, and a jump past a "
               "declaration into its scope does not compile; put the annotation and the code it "
               "measures in braces that the jump does not enter, or jump elsewhere"});
      break;
    }
  }
}

} // namespace cutrace
