// A kernel's or __device__ function's twin: its markers expanded, its samples and its slots
// (rewriter/traced/KernelPlanner.h).
#include "traced/KernelPlanner.h"

#include "lex/StringLiteral.h"
#include "traced/TracedCallGraph.h"
#include "traced/TracedSamples.h"
#include "traced/TracedTwins.h"

#include "lex/LineIndex.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <map>
#include <set>

namespace cutrace::planner {

/// `file:line:col` of a byte offset, for map locations.
std::string locationAt(const LineIndex &Lines, const std::string &File, unsigned Offset) {
  return File + ":" + std::to_string(Lines.line(Offset)) + ":" +
         std::to_string(Lines.column(Offset));
}

/// Text that cannot end the block comment it is placed in.
std::string commentSafe(llvm::StringRef Text) {
  std::string Out = Text.str();
  for (size_t P = Out.find("*/"); P != std::string::npos; P = Out.find("*/", P))
    Out.replace(P, 2, "* /");
  return Out;
}

void KernelPlanner::plan(const KernelDecl &Kernel, std::vector<const AnnotationUse *> Uses,
                         const HelperGraph &Helpers, int KernelIndex) {
  std::sort(Uses.begin(), Uses.end(),
            [](auto *A, auto *B) { return A->MacroOffset < B->MacroOffset; });
  KernelMapModel M;
  M.Kernel = mapKernelName(Kernel);
  M.Symbol = mapSymbol(Kernel);
  M.MaxEvents = Options.MaxEvents;
  M.Clock = Options.Clock;
  std::vector<const HelperCall *> Calls = Helpers.tracedCallsIn(Helpers.kernelCalls(KernelIndex));
  // The functions it reaches, in this file or another of the translation unit.
  std::vector<std::string> Reached = Unit.reachedFrom(Helpers.keysOf(Calls));
  KernelAt = Kernel.Body.Begin;
  groupType =
      "cutrace::Group<" + std::to_string(Options.MaxEvents) +
      (Options.Clock == "globaltimer" || !Reached.empty() ? ", cutrace::Clock::" + Options.Clock
                                                          : std::string()) +
      (Reached.empty() ? ">" : ", cutrace_map::" + M.Symbol + "_sites>");
  // Groups declared on the call path: every group is reachable from the one handed down.
  OnCallPath = Helpers.reachGroups(Calls);

  // Groups first: their indices are fixed before any marker refers to them. A name
  // identifies a row: every declaration of one name shares one group object.
  std::vector<std::pair<const AnnotationUse *, const Annotation *>> Items;
  bool NeedsBlockGroup = false;
  for (const AnnotationUse *U : Uses)
    if (const Annotation *A = lexical(U->MacroOffset))
      Items.push_back({U, A});
  // Only groups can own a marker: searching them alone keeps a kernel of many markers linear.
  std::vector<std::pair<const AnnotationUse *, const Annotation *>> Groups;
  std::vector<const AnnotationUse *> GroupUses;
  for (auto [U, A] : Items)
    if (isGroupKind(A->Kind)) {
      Groups.push_back({U, A});
      GroupUses.push_back(U);
    }
  for (auto [U, A] : Items)
    if (isMarkerKind(A->Kind) && !innermostGroup(GroupUses, U->MacroOffset))
      NeedsBlockGroup = true;
  for (const HelperCall *C : Calls)
    NeedsBlockGroup |=
        !innermostGroup(GroupUses, C->CalleeName.Begin) && Helpers.needsCallersGroup(*C);
  if (NeedsBlockGroup) {
    M.Groups.push_back({"block", "0"});
    Declared.push_back({"", true, 0});
    IndexOfName["block"] = 0;
  }
  for (auto [U, A] : Groups)
    declareGroup(M, groupDeclared(*U, *A));
  // Then the groups its callees declare, in file order: a name the kernel or an earlier
  // callee declared is the same row.
  std::vector<const CalleeGroup *> CalleeGroups;
  for (const std::string &H : Reached)
    for (const CalleeGroup &G : Unit.Plans.at(H).GroupDecls)
      CalleeGroups.push_back(&G);
  std::sort(CalleeGroups.begin(), CalleeGroups.end(), [](auto *A, auto *B) {
    return std::make_pair(A->File, A->Offset) < std::make_pair(B->File, B->Offset);
  });
  for (const CalleeGroup *G : CalleeGroups)
    declareGroup(M, *G);
  if (M.Groups.empty() && !Calls.empty()) { // every callee group was refused
    M.Groups.push_back({"block", "0"});
    Declared.push_back({"", true, 0});
  }
  InEffect = groupsInEffect(GroupUses, [&](const AnnotationUse &U) {
    auto It = GroupIndex.find(U.MacroOffset);
    return It == GroupIndex.end() ? -1 : static_cast<int>(It->second);
  });
  auto inEffectAt = [&](unsigned Offset) {
    const AnnotationUse *G = innermostGroup(GroupUses, Offset);
    std::vector<unsigned> Chain = G ? InEffect[G->MacroOffset] : std::vector<unsigned>{};
    return Chain.empty() ? std::vector<unsigned>{0} : Chain;
  };
  std::set<std::vector<unsigned>> Together; // the WriterOf objects markers and calls use
  for (auto [U, A] : Items)
    if (isMarkerKind(A->Kind) && inEffectAt(U->MacroOffset).size() > 1)
      Together.insert(inEffectAt(U->MacroOffset));
  for (const HelperCall *C : Calls)
    if (inEffectAt(C->CalleeName.Begin).size() > 1)
      Together.insert(inEffectAt(C->CalleeName.Begin));
  emitGroupObjects(M, Kernel, Together);

  for (auto [U, A] : Items) {
    M.Annotations.push_back(
        {A->spelling().Macro.str(), locationAt(Lines, Options.SourceName, A->MacroOffset)});
    if (isSampleKind(A->Kind)) {
      sample(*A, *U, Calls);
      continue;
    }
    checkSwitchPlacement(*U, *A);
    std::vector<unsigned> Chain = inEffectAt(U->MacroOffset);
    unsigned Group = isGroupKind(A->Kind) ? GroupIndex[U->MacroOffset] : Chain.front();
    size_t SitesBefore = M.Sites.size();
    std::string Text = expand(M, *A, writerOf(M, Chain), Group, *U);
    if (Chain.size() > 1 && M.Sites.size() > SitesBefore)
      M.Sites.back().Groups = Chain;
    bool WholeStatement =
        A->Kind == AnnotationKind::Dag || (isGroupKind(A->Kind) && Declared[Group].LeadAtEntry);
    edit(WholeStatement ? A->Statement : A->Call, std::move(Text));
  }
  // Calls of helpers that reach annotations go to their twins, with the group in scope (a
  // callee recording only into groups of its own call path gets any group: it only reaches
  // the others through it).
  std::map<std::string, std::vector<unsigned>> Received; // groups handed to each callee
  for (const HelperCall *C : Calls) {
    std::vector<unsigned> Chain = inEffectAt(C->CalleeName.Begin);
    callTwin(*C, Helpers, writerOf(M, Chain));
    receive(Received[Helpers.Key[C->Helper]], Chain);
  }
  passOn(Received, Reached);
  for (const std::string &H : Reached) {
    addHelperSites(M, H, Received[H]);
    addHelperGroups(M, H);
  }
  addSlotsParameter(Kernel);
  if (Kernel.IsTemplate && !Kernel.Instantiated && !Uses.empty())
    Plan.Problems.push_back(
        {Uses.front()->MacroOffset,
         "template kernel '" + Kernel.Name +
             "' is not instantiated in this file, so the side-effect checks of payloads that "
             "depend on its template parameters could not run here; they run in the files "
             "that launch it",
         Severity::Note});
  Plan.KernelSpans.push_back({Kernel.QualifiedName, Kernel.Body});
  Plan.Map.Kernels.push_back(std::move(M));
}

void KernelPlanner::planHelper(const KernelDecl &Helper, std::vector<const AnnotationUse *> Uses,
                               const HelperGraph &Helpers, int HelperIndex) {
  std::sort(Uses.begin(), Uses.end(),
            [](auto *A, auto *B) { return A->MacroOffset < B->MacroOffset; });
  auto [At, New] = Unit.Plans.try_emplace(Helpers.Key[HelperIndex]);
  HelperExport &Out = At->second;
  if (!New && (Out.File != FileId || Out.Index != HelperIndex)) {
    // A kernel's map would name two functions' sites alike: never record the wrong names.
    Plan.Problems.push_back(
        {Helper.Body.Begin, "internal error: '" + Helper.QualifiedName +
                                "' and another function of the translation unit have one "
                                "traced key ('" +
                                Helpers.Key[HelperIndex] + "'); please report this file"});
    return;
  }
  Out.File = FileId;
  Out.Index = HelperIndex;
  KernelMapModel M;
  M.Kernel = Helper.QualifiedName;
  const std::string Sites = "__CutraceGroup::sites::" + Helpers.Key[HelperIndex];
  SiteIdPrefix = Sites;
  std::vector<std::string> &Names = Out.GroupNames;
  std::vector<bool> &ConstantLead = Out.ConstantLeadDeclared;
  std::vector<const AnnotationUse *> GroupUses;
  std::map<unsigned, unsigned> NameOf; // a declaration's offset -> its name's index
  auto varOf = [&](const AnnotationUse *G) {
    size_t Nth = std::find(GroupUses.begin(), GroupUses.end(), G) - GroupUses.begin();
    return "__cutrace_" + identifierFrom(Names[NameOf[G->MacroOffset]]) + "_g" +
           std::to_string(Nth);
  };
  for (const AnnotationUse *U : Uses)
    if (const Annotation *A = lexical(U->MacroOffset); A && isGroupKind(A->Kind)) {
      std::string Name = literal(A->Args[0]);
      auto It = std::find(Names.begin(), Names.end(), Name);
      NameOf[U->MacroOffset] = It - Names.begin();
      if (It == Names.end()) {
        Names.push_back(Name);
        ConstantLead.push_back(false);
      }
      if (A->Kind == AnnotationKind::Group && U->LeadValue)
        ConstantLead[NameOf[U->MacroOffset]] = true;
      GroupUses.push_back(U);
      Out.GroupDecls.push_back(groupDeclared(*U, *A));
    }
  // Groups declared together: after the second, a WriterOf of them (device.h) is in effect.
  std::map<unsigned, std::vector<unsigned>> InEffectHere = groupsInEffect(
      GroupUses, [&](const AnnotationUse &U) { return static_cast<int>(NameOf[U.MacroOffset]); });
  std::map<unsigned, std::string> InEffectVar; // a declaration -> what is in effect after it
  auto inEffectVar = [&](const AnnotationUse *G) {
    return G ? InEffectVar[G->MacroOffset] : std::string("__cutrace_group");
  };
  auto localChain = [&](const AnnotationUse *G) {
    std::vector<int> Chain;
    for (unsigned N : InEffectHere[G->MacroOffset])
      Chain.push_back(static_cast<int>(N));
    return Chain;
  };
  for (const AnnotationUse *U : Uses) {
    const Annotation *A = lexical(U->MacroOffset);
    if (!A)
      continue;
    if (isSampleKind(A->Kind)) {
      sample(*A, *U, Helpers.tracedCallsIn(Helpers.CallsIn[HelperIndex]));
      continue;
    }
    checkSwitchPlacement(*U, *A);
    if (isGroupKind(A->Kind)) {
      std::string K = std::to_string(NameOf[U->MacroOffset]), Var = varOf(U);
      std::string Text =
          "auto &" + Var + " = __cutrace_group.template group<" + Sites + "_group_" + K + ">();";
      if (A->Kind == AnnotationKind::Groups)
        Text += " /* TRACE_GROUPS(" + commentSafe(text(A->Args[0])) +
                ", ...): the kernel's group, constructed at its entry */";
      else if (!U->LeadValue)
        Text += " " + Var + ".lead((" + text(A->Args[1]).str() + "));";
      else // a constant lead: chosen at the entry unless another declaration computes it
        Text += " if constexpr (" + Sites + "_lead_" + K + ") " + Var + ".lead((" +
                text(A->Args[1]).str() + "));";
      InEffectVar[U->MacroOffset] = Var;
      if (const AnnotationUse *Before = innermostGroup(GroupUses, U->MacroOffset);
          Before && InEffectHere[U->MacroOffset].size() > 1) {
        InEffectVar[U->MacroOffset] = Var + "_and_before";
        Text +=
            " cutrace::WriterOf " + Var + "_and_before(" + Var + ", " + inEffectVar(Before) + ");";
      }
      edit(A->Statement, std::move(Text));
      continue;
    }
    const AnnotationUse *G = innermostGroup(GroupUses, U->MacroOffset);
    size_t SitesBefore = M.Sites.size();
    std::string Text = expand(M, *A, inEffectVar(G), 0, *U);
    if (G && M.Sites.size() > SitesBefore) {
      M.Sites.back().LocalGroup = static_cast<int>(NameOf[G->MacroOffset]);
      if (InEffectHere[G->MacroOffset].size() > 1)
        M.Sites.back().LocalGroups = localChain(G);
    }
    edit(A->Kind == AnnotationKind::Dag ? A->Statement : A->Call, std::move(Text));
  }
  for (const HelperCall *C : Helpers.tracedCallsIn(Helpers.CallsIn[HelperIndex])) {
    const AnnotationUse *G = innermostGroup(GroupUses, C->CalleeName.Begin);
    callTwin(*C, Helpers, inEffectVar(G));
    Out.Callees.push_back(Helpers.Key[C->Helper]);
    Out.Hands.push_back({Helpers.Key[C->Helper], G ? localChain(G) : std::vector<int>{-1}});
  }
  addGroupParameter(Helper);
  Out.Sites = std::move(M);
}

void KernelPlanner::sample(const Annotation &A, const AnnotationUse &U,
                           const std::vector<const HelperCall *> &Calls) {
  std::vector<unsigned> CallsAt;
  for (const HelperCall *C : Calls)
    CallsAt.push_back(C->CalleeName.Begin);
  planSample(Buffer, Lines, Options, Annotations, A, U, CallsAt, CopyEdits, TwinEdits,
             Plan.Problems);
}

std::string KernelPlanner::literal(Span S) {
  llvm::Expected<std::string> Value = decodeStringLiteral(text(S));
  if (Value)
    return std::move(*Value);
  Plan.Problems.push_back({S.Begin, llvm::toString(Value.takeError())});
  return text(S).str();
}

unsigned KernelPlanner::laneId(KernelMapModel &M, const std::string &Lane) {
  auto [It, New] = LaneIds.try_emplace(Lane, M.Lanes.size());
  if (New)
    M.Lanes.push_back(Lane);
  return It->second;
}

std::string KernelPlanner::payload(const Annotation &A) const {
  std::optional<Span> P = A.argWithRole(ArgRole::Payload);
  return P ? "(" + text(*P).str() + ")" : "0";
}

std::string KernelPlanner::expand(KernelMapModel &M, const Annotation &A,
                                  const std::string &GroupVar, unsigned Group,
                                  const AnnotationUse &U) {
  if (isGroupKind(A.Kind)) {
    unsigned Index = GroupIndex.count(U.MacroOffset) ? GroupIndex[U.MacroOffset] : 0;
    if (Declared.empty() || Declared[Index].LeadAtEntry)
      return "/* " + A.spelling().Macro.str() + "(" + commentSafe(text(A.Args[0])) +
             ", ...): group " + std::to_string(Index) + ", constructed at the kernel's entry */";
    return groupVar(M, Index) + ".lead((" + text(A.Args[1]).str() + "))";
  }
  if (A.Kind == AnnotationKind::Dag) {
    std::string Src = literal(A.Args[0]), Dst = literal(A.Args[1]);
    M.Flows.push_back({Src, Dst});
    return "/* TRACE_DAG(" + commentSafe(text(A.Args[0])) + ", " + commentSafe(text(A.Args[1])) +
           "): a flow in the decode map */";
  }
  if (A.Kind == AnnotationKind::RangeEnd)
    return GroupVar + ".end(" + A.TokenName + ")";
  std::optional<Span> LaneArg = A.argWithRole(ArgRole::Lane);
  MapSite Site;
  Site.Id = M.Sites.size();
  Site.Kind = A.Kind == AnnotationKind::RecordIf ? AnnotationKind::Record : A.Kind;
  Site.Name = literal(*A.argWithRole(ArgRole::Name));
  Site.Lane = laneId(M, LaneArg ? literal(*LaneArg) : "main");
  Site.Group = Group;
  Site.Loc = locationAt(Lines, Options.SourceName, A.MacroOffset);
  Site.Offset = A.MacroOffset;
  M.Sites.push_back(Site);
  std::string Id = SiteIdPrefix.empty() ? std::to_string(Site.Id)
                   : Site.Id == 0       ? SiteIdPrefix
                                        : SiteIdPrefix + " + " + std::to_string(Site.Id);
  std::string Args = Id + ", " + payload(A) + ")";
  std::optional<Span> Cond = A.argWithRole(ArgRole::Condition);
  std::string CondArg = Cond ? "(" + text(*Cond).str() + "), " : "";
  switch (A.Kind) {
  case AnnotationKind::Range:
    return "cutrace::Range __cutrace_range_" + std::to_string(Site.Id) + "(" + GroupVar + ", " +
           Args;
  case AnnotationKind::RangeIf:
    return "cutrace::RangeIf __cutrace_range_" + std::to_string(Site.Id) + "(" + GroupVar + ", " +
           CondArg + Args;
  case AnnotationKind::RecordIf:
    return GroupVar + ".instant_if(" + CondArg + Args;
  case AnnotationKind::RangeStart:
    return GroupVar + ".start(" + Args;
  default:
    return GroupVar + ".instant(" + Args;
  }
}

void KernelPlanner::checkSwitchPlacement(const AnnotationUse &U, const Annotation &A) {
  // A callee's group declaration declares a reference to the kernel's group.
  bool DeclaresObject = isScopedRangeKind(A.Kind) || A.Kind == AnnotationKind::RangeStart ||
                        (isGroupKind(A.Kind) && U.Side == FunctionSide::Device);
  if (DeclaresObject && U.BlockIsSwitchBody && !U.LaterCaseLabels.empty())
    Plan.Problems.push_back(
        {A.MacroOffset, A.spelling().Macro.str() +
                            " directly in a switch body would be jumped over by a later case "
                            "label; put this case's statements in braces"});
}

void KernelPlanner::addSlotsParameter(const KernelDecl &Kernel) {
  for (Edit &E : slotsParameterEdits(Buffer, Kernel))
    edit(E.Range, std::move(E.Text));
}

} // namespace cutrace::planner
