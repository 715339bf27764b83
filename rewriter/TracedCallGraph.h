// The static call graph of a traced file (docs/design.md, "Traced contract"): which __device__
// functions reach annotations, which declare groups or reach one, the calls written in kernels
// and functions, and the kernels that get a twin because of it.
#ifndef CUTRACE_REWRITER_TRACEDCALLGRAPH_H
#define CUTRACE_REWRITER_TRACEDCALLGRAPH_H

#include "DecodeMap.h"
#include "SourceModel.h"
#include "TracedRewrite.h"
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace cutrace {

/// The innermost group declaration before Offset whose block still encloses it (inner shadows
/// outer), among Groups.
const AnnotationUse *innermostGroup(const std::vector<const AnnotationUse *> &Groups,
                                    unsigned Offset);

/// The __device__ functions of the file that reach an annotation (directly, or by calling one
/// that does), and the calls of them.
struct HelperGraph {
  std::vector<bool> Traced;                             // by helper index
  std::vector<std::string> Key;                         // `G::sites::<Key>`, by helper index
  std::vector<std::string> TwinName;                    // by helper index
  std::vector<std::vector<const HelperCall *>> CallsIn; // calls written in each helper's body
  std::map<int, std::vector<const HelperCall *>> CallsInKernel;
  std::vector<KernelMapModel> Sites; // each traced helper's own sites, ids from 0
  /// Groups on the call path, by helper: its TRACE_GROUP / TRACE_GROUPS uses in file order,
  /// whether it reaches one (itself or through a callee), and whether it records into its
  /// caller's group (a marker, or a call of such a function, outside the groups it declares).
  std::vector<std::vector<const AnnotationUse *>> GroupUses;
  std::vector<bool> ReachesGroups;
  std::vector<bool> RecordsIntoCaller;
  /// Filled when a helper is planned: its group names (its numbering) and their declarations.
  std::vector<std::vector<std::string>> GroupNames;
  std::vector<std::vector<bool>> ConstantLeadDeclared; // a TRACE_GROUP of the name has a constant
  std::vector<std::vector<std::pair<const AnnotationUse *, const Annotation *>>> GroupDecls;

  const std::vector<const HelperCall *> &kernelCalls(int Kernel) const {
    static const std::vector<const HelperCall *> None;
    auto It = CallsInKernel.find(Kernel);
    return It == CallsInKernel.end() ? None : It->second;
  }

  std::vector<const HelperCall *>
  tracedCallsIn(const std::vector<const HelperCall *> &Calls) const {
    std::vector<const HelperCall *> Out;
    for (const HelperCall *C : Calls)
      if (Traced[C->Helper] && !C->InMacro)
        Out.push_back(C);
    return Out;
  }

  /// Every traced helper these calls reach, through helpers too, by index.
  std::vector<int> reachedFrom(const std::vector<const HelperCall *> &Calls) const {
    std::set<int> Seen;
    std::vector<int> Work;
    for (const HelperCall *C : Calls)
      if (Seen.insert(C->Helper).second)
        Work.push_back(C->Helper);
    while (!Work.empty()) {
      int H = Work.back();
      Work.pop_back();
      for (const HelperCall *C : tracedCallsIn(CallsIn[H]))
        if (Seen.insert(C->Helper).second)
          Work.push_back(C->Helper);
    }
    return {Seen.begin(), Seen.end()};
  }

  /// True when a kernel calling Calls reaches a group declared on its call path.
  bool reachGroups(const std::vector<const HelperCall *> &Calls) const {
    for (const HelperCall *C : Calls)
      if (ReachesGroups[C->Helper])
        return true;
    return false;
  }

  /// A call outside every group of its function must have a group to hand down: the block's,
  /// unless the callee records only into groups of its own call path.
  bool needsCallersGroup(const HelperCall &C) const {
    return RecordsIntoCaller[C.Helper] || !ReachesGroups[C.Helper];
  }
};

/// The annotations of each __device__ function, by helper index.
std::map<int, std::vector<const AnnotationUse *>> usesByHelper(const SourceModel &Model);

/// Which helpers reach an annotation, where each call is written, and which reach a group.
HelperGraph helperGraph(const SourceModel &Model,
                        const std::map<int, std::vector<const AnnotationUse *>> &UsesByHelper);

/// A recursive cycle through helpers that reach annotations is an error (each call would need
/// the group, and recursion keeps it in memory).
void checkRecursion(const SourceModel &Model, const HelperGraph &G, TracedPlan &Plan);

/// The kernels that get a twin: those holding annotations, and those whose calls reach an
/// annotated function, in any instantiation (markers only: into its block group; groups declared
/// on the call path: rows of every kernel that reaches them), with their own annotations.
std::map<int, std::vector<const AnnotationUse *>> tracedKernels(const SourceModel &Model,
                                                                const HelperGraph &Helpers);

} // namespace cutrace

#endif
