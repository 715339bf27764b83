// The static call graph of a traced file (docs/design.md, "Traced contract"): which __device__
// functions reach annotations, which declare groups or reach one, the calls written in kernels
// and functions, and the kernels that get a twin because of it.
#ifndef CUTRACE_REWRITER_TRACEDCALLGRAPH_H
#define CUTRACE_REWRITER_TRACEDCALLGRAPH_H

#include "lex/LineIndex.h"
#include "model/SourceModel.h"
#include "traced/DecodeMap.h"
#include "traced/TracedRewrite.h"
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace cutrace {

/// The innermost group declaration before Offset whose block still encloses it (inner shadows
/// outer), among Groups.
const AnnotationUse *innermostGroup(const std::vector<const AnnotationUse *> &Groups,
                                    unsigned Offset);

/// Groups declared together in one block (docs/annotations.md, "Groups in effect together"): for
/// each declaration among Groups (in file order), the groups in effect right after it, latest
/// first: its own, then those in effect before it in the same block, each once. Index gives a
/// declaration's group (-1: refused, in effect nowhere).
std::map<unsigned, std::vector<unsigned>>
groupsInEffect(const std::vector<const AnnotationUse *> &Groups,
               const std::function<int(const AnnotationUse &)> &Index);

/// A TRACE_GROUP / TRACE_GROUPS a __device__ function declares, as the kernels reaching it see
/// it: the same row for every declaration of its name.
struct CalleeGroup {
  int File = 0;         // which file of the translation unit (TracedFile::Id)
  unsigned Offset = 0;  // of the annotation, in that file
  unsigned LeadAt = 0;  // of its second argument
  std::string Loc;      // file:line:col, for messages in the kernel's file
  std::string Macro;    // TRACE_GROUP or TRACE_GROUPS
  std::string Name;     // decoded
  std::string LeadText; // the lead as spelled (TRACE_GROUP)
  bool Sliced = false;  // TRACE_GROUPS
  unsigned SliceThreads = 0, FirstThread = 0;
  std::optional<int64_t> LeadValue;
  bool HasErrors = false; // refused where it is written
};

/// What a __device__ function's callers, in any file of the translation unit, need to know of
/// it (docs/design.md, "Calls across files"), by key (`<qualified name>_<line of its body>`).
struct HelperFacts {
  bool Traced = false;            // reaches an annotation
  bool ReachesGroups = false;     // reaches a group declaration
  bool RecordsIntoCaller = false; // records into the group it is handed
  bool operator==(const HelperFacts &O) const {
    return Traced == O.Traced && ReachesGroups == O.ReachesGroups &&
           RecordsIntoCaller == O.RecordsIntoCaller;
  }
};

/// A traced __device__ function as its file planned it: what a kernel reaching it adds to its
/// map, in whichever file the kernel is.
struct HelperExport {
  int File = 0;  // which file of the translation unit (TracedFile::Id)
  int Index = 0; // its index among that file's helpers: the order kernels list callees in
  KernelMapModel Sites; // its own sites, ids from 0, located in its file
  std::vector<std::string> GroupNames;      // its numbering of the group names it declares
  std::vector<bool> ConstantLeadDeclared;   // a TRACE_GROUP of the name has a constant lead
  std::vector<CalleeGroup> GroupDecls;      // in file order
  std::vector<std::string> Callees;         // keys of the traced functions it calls
  /// The groups each call hands its callee (by key): the groups it declares in effect at the
  /// call, by its numbering of their names, or -1 for the group it was handed itself.
  std::vector<std::pair<std::string, std::vector<int>>> Hands;
};

/// The traced __device__ functions of a whole translation unit, filled file by file.
struct UnitHelpers {
  std::map<std::string, HelperFacts> Facts;
  std::map<std::string, HelperExport> Plans;
  std::set<std::string> Reached; // keys some kernel of the unit reaches

  /// Every traced function these reach, through their callees too, by file and then in the
  /// order their file lists them.
  std::vector<std::string> reachedFrom(const std::vector<std::string> &Keys) const {
    std::set<std::string> Seen;
    std::vector<std::string> Work;
    for (const std::string &K : Keys)
      if (Plans.count(K) && Seen.insert(K).second)
        Work.push_back(K);
    while (!Work.empty()) {
      std::string K = Work.back();
      Work.pop_back();
      for (const std::string &C : Plans.at(K).Callees)
        if (Plans.count(C) && Seen.insert(C).second)
          Work.push_back(C);
    }
    std::vector<std::string> Out(Seen.begin(), Seen.end());
    std::sort(Out.begin(), Out.end(), [&](const std::string &A, const std::string &B) {
      const HelperExport &X = Plans.at(A), &Y = Plans.at(B);
      return std::make_pair(X.File, X.Index) < std::make_pair(Y.File, Y.Index);
    });
    return Out;
  }
};

/// The __device__ functions of the file that reach an annotation (directly, or by calling one
/// that does, in any file), and the calls of them.
struct HelperGraph {
  std::vector<bool> Traced;                             // by helper index
  std::vector<std::string> Key;                         // `G::sites::<Key>`, by helper index
  std::vector<std::string> TwinName;                    // by helper index
  std::vector<std::vector<const HelperCall *>> CallsIn; // calls written in each helper's body
  std::map<int, std::vector<const HelperCall *>> CallsInKernel;
  /// Groups on the call path, by helper: its TRACE_GROUP / TRACE_GROUPS uses in file order,
  /// whether it reaches one (itself or through a callee), and whether it records into its
  /// caller's group (a marker, or a call of such a function, outside the groups it declares).
  std::vector<std::vector<const AnnotationUse *>> GroupUses;
  std::vector<bool> ReachesGroups;
  std::vector<bool> RecordsIntoCaller;

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

  /// The keys of the functions these calls name.
  std::vector<std::string> keysOf(const std::vector<const HelperCall *> &Calls) const {
    std::vector<std::string> Keys;
    for (const HelperCall *C : Calls)
      Keys.push_back(Key[C->Helper]);
    return Keys;
  }

  /// This file's facts of helper H, as the rest of the unit sees them.
  HelperFacts facts(int H) const { return {Traced[H], ReachesGroups[H], RecordsIntoCaller[H]}; }

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

/// `<qualified name>_<line of its body's '{'>`, and for an overload a hash of its signature
/// (KernelDecl::Signature): a helper's key, the same in every file, unique in the unit.
std::vector<std::string> helperKeys(const SourceModel &Model, const LineIndex &Lines);

/// Which helpers reach an annotation, where each call is written, and which reach a group; the
/// facts of helpers defined in other files come from Unit.
HelperGraph helperGraph(const SourceModel &Model,
                        const std::map<int, std::vector<const AnnotationUse *>> &UsesByHelper,
                        std::vector<std::string> Keys, const UnitHelpers &Unit);

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
