#include "traced/TracedJumps.h"

#include <algorithm>

namespace cutrace {

namespace {

/// A scoped range's or a token's object, or, in a __device__ function, the reference a group
/// declaration binds to the kernel's group.
bool declaresObject(const AnnotationUse &U) {
  return isScopedRangeKind(U.Kind) || U.Kind == AnnotationKind::RangeStart ||
         (isGroupKind(U.Kind) && U.Side == FunctionSide::Device);
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
    if (!declaresObject(*U) || U->Block.End <= U->Block.Begin)
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
