// Calls from a twin to the twins of the functions it reaches: the routed call, the callee's
// sites and groups in the kernel's map, and what each callee is handed
// (rewriter/traced/KernelPlanner.h).
#include "traced/KernelPlanner.h"

#include "traced/TracedCallGraph.h"
#include "traced/TracedRoutes.h"

#include "lex/LineIndex.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <map>
#include <set>

namespace cutrace::planner {

void KernelPlanner::callTwin(const HelperCall &C, const HelperGraph &Helpers,
                             const std::string &GroupVar) {
  if (!Routed.insert(C.RParen).second)
    return;
  const std::string &Twin = Helpers.TwinName[C.Helper];
  if (C.Dispatch && C.ExplicitTemplateArgs) {
    Plan.Problems.push_back(
        {C.CalleeName.Begin,
         "this call names template arguments and its callee depends on a template parameter, "
         "so the traced build cannot route it to the twin of '" +
             Buffer.substr(C.CalleeName.Begin, C.CalleeName.size()).str() +
             "'; let the arguments deduce them, or call through a member that does"});
    return;
  }
  if (C.InLambdaByCopy) {
    Plan.Problems.push_back(
        {C.CalleeName.Begin,
         "this call reaches annotations (through '" +
             Buffer.substr(C.CalleeName.Begin, C.CalleeName.size()).str() +
             "'), but it is in a lambda that does not capture by reference, so the traced "
             "build cannot pass it the group; give the lambda a [&] default capture"});
    return;
  }
  if (C.Dispatch)
    Plan.Routes.try_emplace(routeName(C), routeDefinition(C, Twin));
  for (Edit &E : routeEdits(Buffer, C, Twin, GroupVar))
    edit(E.Range, std::move(E.Text));
}

void KernelPlanner::addHelperSites(KernelMapModel &M, const std::string &Key,
                                   const std::vector<unsigned> &Handed) {
  const HelperExport &Callee = Unit.Plans.at(Key);
  const KernelMapModel &Own = Callee.Sites;
  unsigned Base = M.Sites.size();
  M.HelperSiteBases.push_back({Key, Base});
  for (MapSite S : Own.Sites) {
    S.Id += Base;
    S.Lane = laneId(M, Own.Lanes[S.Lane]);
    S.Group = S.LocalGroup >= 0 ? groupNamed(Callee.GroupNames[S.LocalGroup])
              : Handed.empty()  ? 0
                                : Handed.front();
    if (S.LocalGroup < 0 && Handed.size() > 1)
      S.Groups = Handed;
    for (int Local : S.LocalGroups)
      receive(S.Groups, {groupNamed(Callee.GroupNames[Local])});
    S.LocalGroup = -1;
    S.LocalGroups.clear();
    S.Helper = Own.Kernel;
    M.Sites.push_back(std::move(S));
  }
  for (const auto &F : Own.Flows)
    if (std::find(M.Flows.begin(), M.Flows.end(), F) == M.Flows.end())
      M.Flows.push_back(F);
}

void KernelPlanner::addHelperGroups(KernelMapModel &M, const std::string &Key) {
  const HelperExport &Callee = Unit.Plans.at(Key);
  for (size_t K = 0; K < Callee.GroupNames.size(); ++K) {
    auto It = IndexOfName.find(Callee.GroupNames[K]);
    if (It == IndexOfName.end())
      continue; // refused where it was declared
    M.HelperGroupIndices.push_back({Key + "_group_" + std::to_string(K), It->second});
    if (Callee.ConstantLeadDeclared[K])
      M.HelperLeads.push_back(
          {Key + "_lead_" + std::to_string(K), !Declared[It->second].LeadAtEntry});
  }
}

bool KernelPlanner::receive(std::vector<unsigned> &Into, const std::vector<unsigned> &Groups) {
  bool Changed = false;
  for (unsigned G : Groups)
    if (std::find(Into.begin(), Into.end(), G) == Into.end()) {
      Into.push_back(G);
      Changed = true;
    }
  return Changed;
}

void KernelPlanner::passOn(std::map<std::string, std::vector<unsigned>> &Received,
                           const std::vector<std::string> &Reached) const {
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const std::string &H : Reached)
      for (const auto &[Callee, Chain] : Unit.Plans.at(H).Hands) {
        std::vector<unsigned> Groups;
        for (int Local : Chain)
          receive(Groups, Local < 0 ? Received[H]
                                    : std::vector<unsigned>{
                                          groupNamed(Unit.Plans.at(H).GroupNames[Local])});
        Changed |= receive(Received[Callee], Groups);
      }
  }
}

} // namespace cutrace::planner
