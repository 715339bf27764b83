#include "traced/TracedCallGraph.h"

#include "traced/TracedTwins.h"

#include <algorithm>
#include <functional>

namespace cutrace {

const AnnotationUse *innermostGroup(const std::vector<const AnnotationUse *> &Groups,
                                    unsigned Offset) {
  const AnnotationUse *Best = nullptr;
  for (const AnnotationUse *U : Groups)
    if (U->MacroOffset < Offset && U->Block.Begin < Offset && Offset < U->Block.End &&
        (!Best || Best->Block.Begin <= U->Block.Begin))
      Best = U;
  return Best;
}

std::map<unsigned, std::vector<unsigned>>
groupsInEffect(const std::vector<const AnnotationUse *> &Groups,
               const std::function<int(const AnnotationUse &)> &Index) {
  std::map<unsigned, std::vector<unsigned>> InEffect;
  for (size_t I = 0; I < Groups.size(); ++I) {
    const AnnotationUse &G = *Groups[I];
    std::vector<unsigned> &Chain = InEffect[G.MacroOffset];
    if (int Own = Index(G); Own >= 0)
      Chain.push_back(Own);
    for (size_t J = I; J-- > 0;) {
      const AnnotationUse &Before = *Groups[J];
      if (Before.Block.Begin != G.Block.Begin || Before.Block.End != G.Block.End)
        continue;
      for (unsigned X : InEffect[Before.MacroOffset])
        if (std::find(Chain.begin(), Chain.end(), X) == Chain.end())
          Chain.push_back(X);
      break;
    }
  }
  return InEffect;
}

std::map<int, std::vector<const AnnotationUse *>> usesByHelper(const SourceModel &Model) {
  std::map<int, std::vector<const AnnotationUse *>> Uses;
  for (const AnnotationUse &U : Model.Uses)
    if (U.Side == FunctionSide::Device && U.Helper >= 0)
      Uses[U.Helper].push_back(&U);
  return Uses;
}

/// `C<T, U>::f` -> `C::f`: a partial specialization's members print their class with its
/// arguments (CUTLASS's `GemmUniversal<P, M, E, S, enable_if_t<...>>`); the line tells members
/// apart. Unbalanced brackets (an operator's name) keep the name as it is.
static std::string withoutTemplateArguments(llvm::StringRef Name) {
  std::string Out;
  int Depth = 0;
  for (char C : Name) {
    Depth += C == '<';
    if (Depth == 0)
      Out += C;
    Depth -= C == '>';
    if (Depth < 0)
      return Name.str();
  }
  return Depth == 0 ? Out : Name.str();
}

std::vector<std::string> helperKeys(const SourceModel &Model, const LineIndex &Lines) {
  std::vector<std::string> Keys;
  for (const KernelDecl &H : Model.Helpers) {
    std::string Short = withoutTemplateArguments(H.QualifiedName);
    std::string Key = identifierFrom(Short) + "_" +
                      std::to_string(H.DefinedIn.empty() ? Lines.line(H.Body.Begin) : H.DefinedLine);
    // Two partial specializations may hold members of one name at one line in two headers
    // (CUTLASS's SS and FP8 mainloops): the arguments left out tell them apart.
    if (Short != H.QualifiedName)
      Key += "_" + shortHash(H.QualifiedName);
    // Overloads may have bodies on one line (of one file, or of two headers): their template
    // parameters, parameter types and the body's column tell them apart.
    if (H.Overloaded)
      Key += "_" + shortHash(H.Signature);
    Keys.push_back(std::move(Key));
  }
  return Keys;
}

HelperGraph helperGraph(const SourceModel &Model,
                        const std::map<int, std::vector<const AnnotationUse *>> &UsesByHelper,
                        std::vector<std::string> Keys, const UnitHelpers &Unit) {
  HelperGraph G;
  size_t N = Model.Helpers.size();
  G.Traced.assign(N, false);
  G.CallsIn.resize(N);
  G.Key = std::move(Keys);
  G.TwinName.resize(N);
  G.GroupUses.resize(N);
  G.ReachesGroups.assign(N, false);
  G.RecordsIntoCaller.assign(N, false);
  for (size_t H = 0; H < N; ++H) {
    G.TwinName[H] = twinName(Model.Helpers[H].Name);
    // A function of another file: what its own file found, so far.
    auto Known = Unit.Facts.find(G.Key[H]);
    if (Model.Helpers[H].DefinedIn.empty() || Known == Unit.Facts.end())
      continue;
    G.Traced[H] = Known->second.Traced;
    G.ReachesGroups[H] = Known->second.ReachesGroups;
    G.RecordsIntoCaller[H] = Known->second.RecordsIntoCaller;
  }
  auto inside = [](unsigned Offset, Span S) { return S.Begin < Offset && Offset < S.End; };
  for (const HelperCall &C : Model.HelperCalls) {
    bool Placed = false;
    for (size_t K = 0; K < Model.Kernels.size() && !Placed; ++K)
      if (inside(C.CalleeName.Begin, Model.Kernels[K].Body)) {
        G.CallsInKernel[K].push_back(&C);
        Placed = true;
      }
    for (size_t H = 0; H < N && !Placed; ++H)
      if (inside(C.CalleeName.Begin, Model.Helpers[H].Body)) {
        G.CallsIn[H].push_back(&C);
        Placed = true;
      }
  }
  for (const auto &[H, Uses] : UsesByHelper) {
    G.Traced[H] = true;
    for (const AnnotationUse *U : Uses)
      if (isGroupKind(U->Kind))
        G.GroupUses[H].push_back(U);
    std::sort(G.GroupUses[H].begin(), G.GroupUses[H].end(),
              [](auto *A, auto *B) { return A->MacroOffset < B->MacroOffset; });
    G.ReachesGroups[H] = !G.GroupUses[H].empty();
    for (const AnnotationUse *U : Uses)
      if (isMarkerKind(U->Kind) && !innermostGroup(G.GroupUses[H], U->MacroOffset))
        G.RecordsIntoCaller[H] = true;
  }
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (size_t H = 0; H < N; ++H)
      for (const HelperCall *C : G.CallsIn[H])
        if (!G.Traced[H] && G.Traced[C->Helper])
          G.Traced[H] = Changed = true;
  }
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (size_t H = 0; H < N; ++H)
      for (const HelperCall *C : G.tracedCallsIn(G.CallsIn[H])) {
        if (!G.ReachesGroups[H] && G.ReachesGroups[C->Helper])
          G.ReachesGroups[H] = Changed = true;
        if (!G.RecordsIntoCaller[H] && G.needsCallersGroup(*C) &&
            !innermostGroup(G.GroupUses[H], C->CalleeName.Begin))
          G.RecordsIntoCaller[H] = Changed = true;
      }
  }
  return G;
}

void checkRecursion(const SourceModel &Model, const HelperGraph &G, TracedPlan &Plan) {
  // Depth-first over traced helpers: a call back into the current path closes a cycle.
  size_t N = Model.Helpers.size();
  std::vector<int> State(N, 0); // 0 unvisited, 1 on the path, 2 done
  std::function<void(int)> Visit = [&](int H) {
    State[H] = 1;
    for (const HelperCall *C : G.tracedCallsIn(G.CallsIn[H])) {
      if (State[C->Helper] == 1)
        Plan.Problems.push_back(
            {C->CalleeName.Begin,
             "recursive call of '" + Model.Helpers[C->Helper].Name +
                 "': a __device__ function that reaches annotations cannot call itself, directly "
                 "or through other functions (its twin takes the caller's group)"});
      else if (State[C->Helper] == 0)
        Visit(C->Helper);
    }
    State[H] = 2;
  };
  for (size_t H = 0; H < N; ++H)
    if (G.Traced[H] && State[H] == 0)
      Visit(H);
}

std::map<int, std::vector<const AnnotationUse *>> tracedKernels(const SourceModel &Model,
                                                                const HelperGraph &Helpers) {
  std::map<int, std::vector<const AnnotationUse *>> UsesByKernel;
  for (const AnnotationUse &U : Model.Uses)
    if (U.Side == FunctionSide::Global && U.Kernel >= 0)
      UsesByKernel[U.Kernel].push_back(&U);
  for (size_t K = 0; K < Model.Kernels.size(); ++K)
    if (Model.Kernels[K].Body.End > Model.Kernels[K].Body.Begin &&
        !Helpers.tracedCallsIn(Helpers.kernelCalls(K)).empty())
      UsesByKernel[K]; // a kernel without annotations of its own: its callees record
  return UsesByKernel;
}

} // namespace cutrace
