#include "traced/TracedRewrite.h"

#include "auto/AutoPlan.h"
#include "model/AutoLoops.h"

#include "lex/StringLiteral.h"
#include "strip/Strip.h"
#include "traced/TracedCallGraph.h"
#include "traced/TracedJumps.h"
#include "traced/TracedLaunches.h"
#include "traced/TracedRoutes.h"
#include "traced/TracedSamples.h"
#include "traced/TracedTwins.h"

#include "lex/LineIndex.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <set>

namespace cutrace {
namespace {

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

/// The lexical annotation at each macro offset (the first one, if the scan found two).
using AnnotationsByOffset = llvm::DenseMap<unsigned, const Annotation *>;

class KernelPlanner {
public:
  KernelPlanner(llvm::StringRef Buffer, llvm::ArrayRef<Annotation> Annotations,
                const AnnotationsByOffset &LexicalAt, const TracedOptions &Options,
                const LineIndex &Lines, TracedPlan &Plan, std::vector<Edit> &TwinEdits,
                UnitHelpers &Unit, int FileId)
      : Buffer(Buffer), Annotations(Annotations), LexicalAt(LexicalAt), Options(Options),
        Lines(Lines), Plan(Plan), TwinEdits(TwinEdits), Unit(Unit), FileId(FileId) {}

  void plan(const KernelDecl &Kernel, std::vector<const AnnotationUse *> Uses,
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

  /// The twin edits of a __device__ function that reaches annotations: its markers record into
  /// the group its caller passes (`__cutrace_group`), or, after a TRACE_GROUP / TRACE_GROUPS of
  /// its own and inside that declaration's block, into the kernel's group of that name, found
  /// through the group passed (`.group<G::sites::<helper>_group_<k>>()`); site ids are those the
  /// group's type names, and its calls of other such functions pass the group in scope. Records
  /// its sites (numbered from 0) and its group names in Helpers.
  void planHelper(const KernelDecl &Helper, std::vector<const AnnotationUse *> Uses,
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
                                  "traced key ('" + Helpers.Key[HelperIndex] +
                                  "'); please report this file"});
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
          Text += " cutrace::WriterOf " + Var + "_and_before(" + Var + ", " +
                  inEffectVar(Before) + ");";
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

  /// The edits of the twin's declarations written here of a helper another file defines.
  void declareHelper(const KernelDecl &Helper) { addGroupParameter(Helper); }

private:
  /// TRACE_SAMPLE: its statement twice in the twin (rewriter/traced/TracedSamples.h).
  void sample(const Annotation &A, const AnnotationUse &U,
              const std::vector<const HelperCall *> &Calls) {
    std::vector<unsigned> CallsAt;
    for (const HelperCall *C : Calls)
      CallsAt.push_back(C->CalleeName.Begin);
    planSample(Buffer, Lines, Options, Annotations, A, U, CallsAt, TwinEdits, Plan.Problems);
  }

  /// `h(x)` -> `h_cutrace_traced(group, x)`: the twin takes the group first, so default
  /// arguments of the helper stay last. A call site that instantiations send to several
  /// functions is edited once.
  void callTwin(const HelperCall &C, const HelperGraph &Helpers, const std::string &GroupVar) {
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

  /// The helper's sites in this kernel's map, after the kernel's own, and where they start.
  void addHelperSites(KernelMapModel &M, const std::string &Key,
                      const std::vector<unsigned> &Handed) {
    const HelperExport &Callee = Unit.Plans.at(Key);
    const KernelMapModel &Own = Callee.Sites;
    unsigned Base = M.Sites.size();
    M.HelperSiteBases.push_back({Key, Base});
    for (MapSite S : Own.Sites) {
      S.Id += Base;
      S.Lane = laneId(M, Own.Lanes[S.Lane]);
      S.Group = S.LocalGroup >= 0 ? groupNamed(Callee.GroupNames[S.LocalGroup])
                : Handed.empty()   ? 0
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

  /// The kernel's group for each group name helper H declares, and whether that group picks its
  /// writer where declared, as constants of the sites struct its twin reads.
  void addHelperGroups(KernelMapModel &M, const std::string &Key) {
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

  /// Adds Groups to Into, each once, keeping the order they were first handed in.
  static bool receive(std::vector<unsigned> &Into, const std::vector<unsigned> &Groups) {
    bool Changed = false;
    for (unsigned G : Groups)
      if (std::find(Into.begin(), Into.end(), G) == Into.end()) {
        Into.push_back(G);
        Changed = true;
      }
    return Changed;
  }

  /// What each function the kernel reaches is handed, through every call on the way: a callee
  /// records its caller's group into whichever of these the calling thread writes.
  void passOn(std::map<std::string, std::vector<unsigned>> &Received,
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

  /// The group markers and calls use where the groups Chain are in effect (latest first): the
  /// group itself, or the WriterOf of them that the kernel's entry declares.
  std::string writerOf(const KernelMapModel &M, const std::vector<unsigned> &Chain) const {
    if (Chain.size() == 1)
      return groupVar(M, Chain.front());
    std::string Name = "__cutrace_writer_of";
    for (unsigned G : Chain)
      Name += "_" + std::to_string(G);
    return Name;
  }

  unsigned groupNamed(const std::string &Name) const {
    auto It = IndexOfName.find(Name);
    return It == IndexOfName.end() ? 0 : It->second;
  }

  /// The twin's name, a template parameter for the group's type, and the group as its first
  /// parameter, in the copy of every declaration of the helper written here; a
  /// __host__ __device__ function's twin is __device__ only (only traced device code calls it).
  void addGroupParameter(const KernelDecl &Helper) {
    for (const KernelDeclSite &D : Helper.Decls) {
      if (D.InMacro || !D.ParamBegin)
        continue;
      unsigned NameEnd = D.NameEnd ? D.NameEnd : D.Name + static_cast<unsigned>(Helper.Name.size());
      edit({D.Name, NameEnd}, twinName(Helper.Name));
      if (D.HostSpelling.End > D.HostSpelling.Begin) {
        Span Host = D.HostSpelling;
        while (D.DeviceOnlySpelling.empty() && Host.End < Buffer.size() && Buffer[Host.End] == ' ')
          ++Host.End; // `__host__ __device__` -> `__device__`
        edit(Host, D.DeviceOnlySpelling);
      }
      if (D.TemplateParamsEnd)
        edit({D.TemplateParamsEnd, D.TemplateParamsEnd}, ", class __CutraceGroup");
      else if (D.OuterTemplateParamsEnd) // `template <class T> void C<T>::f()` defined out of class
        edit({D.OuterTemplateParamsEnd, D.OuterTemplateParamsEnd},
             " template <class __CutraceGroup>");
      else
        edit({D.Range.Begin, D.Range.Begin}, "template <class __CutraceGroup> ");
      std::string Param = "__CutraceGroup &__cutrace_group";
      if (D.HasParams)
        edit({D.ParamBegin + 1, D.ParamBegin + 1}, Param + ", ");
      else // `h()` or `h(void)`
        edit({D.ParamBegin + 1, D.ParamEnd}, Param);
    }
  }

  llvm::StringRef Buffer;
  llvm::ArrayRef<Annotation> Annotations; // the file's, in file order
  const AnnotationsByOffset &LexicalAt;
  const TracedOptions &Options;
  const LineIndex &Lines;
  TracedPlan &Plan;
  std::vector<Edit> &TwinEdits; // edits of the twin's copy, by offsets in Buffer
  UnitHelpers &Unit;            // the translation unit's traced functions
  int FileId;                   // this file's among the unit's
  unsigned KernelAt = 0;        // the planned kernel's body: where another file's group is blamed
  std::string groupType;
  bool OnCallPath = false;   // the kernel's callees declare groups: its groups form a Roster
  std::string SiteIdPrefix;  // a helper's twin: its sites are `G::sites::<key> + k`
  std::set<unsigned> Routed; // ')' of the calls sent to twins
  std::map<unsigned, size_t> GroupIndex; // a group declaration's offset -> its group
  std::map<unsigned, std::vector<unsigned>> InEffect; // a declaration -> the groups after it
  std::map<std::string, size_t> IndexOfName;
  /// What every declaration of one group name agreed on.
  struct GroupDeclaration {
    std::string FirstLoc;
    bool LeadAtEntry = true; // a constant lead, the same at every declaration (or a sliced group)
    int64_t Lead = 0;
  };
  std::vector<GroupDeclaration> Declared; // by group index
  std::map<std::string, unsigned> LaneIds;

  llvm::StringRef text(Span S) const { return Buffer.substr(S.Begin, S.size()); }

  /// A name, lane or flow end as C++ reads it; one that cannot go into the map is an error there.
  std::string literal(Span S) {
    llvm::Expected<std::string> Value = decodeStringLiteral(text(S));
    if (Value)
      return std::move(*Value);
    Plan.Problems.push_back({S.Begin, llvm::toString(Value.takeError())});
    return text(S).str();
  }

  void edit(Span S, std::string Text) { TwinEdits.push_back({S, std::move(Text)}); }

  const Annotation *lexical(unsigned MacroOffset) const { return LexicalAt.lookup(MacroOffset); }

  std::string groupVar(const KernelMapModel &M, size_t Index) const {
    if (Index == 0 && M.Groups[0].Name == "block" && !M.Groups[0].SliceThreads)
      return "__cutrace_block";
    return "__cutrace_" + identifierFrom(M.Groups[Index].Name) + "_" + std::to_string(Index);
  }

  std::string where(unsigned Offset) const { return locationAt(Lines, Options.SourceName, Offset); }

  /// A group declaration written in this file, as data every kernel reaching it reads.
  CalleeGroup groupDeclared(const AnnotationUse &U, const Annotation &A) {
    CalleeGroup G;
    G.File = FileId;
    G.Offset = A.MacroOffset;
    G.LeadAt = A.Args.size() > 1 ? A.Args[1].Begin : A.MacroOffset;
    G.Loc = where(A.MacroOffset);
    G.Macro = A.spelling().Macro.str();
    G.Name = literal(A.Args[0]);
    G.LeadText = A.Args.size() > 1 ? text(A.Args[1]).str() : "";
    G.Sliced = A.Kind == AnnotationKind::Groups;
    G.SliceThreads = U.SliceThreads;
    G.FirstThread = U.FirstThread;
    G.LeadValue = U.LeadValue;
    G.HasErrors = hasErrors(U.Problems);
    return G;
  }

  /// A problem of a group declaration: where it is written when that is this file, else at the
  /// kernel, naming the declaration's place.
  void groupProblem(const CalleeGroup &G, unsigned Offset, std::string Message) {
    if (G.File == FileId)
      Plan.Problems.push_back({Offset, std::move(Message)});
    else
      Plan.Problems.push_back({KernelAt, G.Loc + ": " + Message});
  }

  /// Gives a group declaration its group: the one its name already has, or a new one. The
  /// declarations of one name must agree on what the row is.
  void declareGroup(KernelMapModel &M, const CalleeGroup &U) {
    const std::string &Name = U.Name;
    bool Sliced = U.Sliced;
    if (Sliced && !U.SliceThreads) {
      if (!U.HasErrors)
        groupProblem(U, U.LeadAt,
                     "size of TRACE_GROUPS must be an integer constant expression that does not "
                     "depend on a template parameter (the rows of a CTA are counted from it at "
                     "the launch)");
      return;
    }
    auto [It, New] = IndexOfName.try_emplace(Name, M.Groups.size());
    if (U.File == FileId)
      GroupIndex[U.Offset] = It->second;
    if (New) {
      MapGroup G{Name, Sliced ? "slice" : U.LeadText};
      if (Sliced) {
        G.SliceThreads = U.SliceThreads;
        G.FirstThread = U.FirstThread;
      }
      M.Groups.push_back(std::move(G));
      Declared.push_back({U.Loc, Sliced || U.LeadValue.has_value(), U.LeadValue.value_or(0)});
      return;
    }
    MapGroup &G = M.Groups[It->second];
    GroupDeclaration &D = Declared[It->second];
    const std::string &First = D.FirstLoc;
    if (Sliced != (G.SliceThreads != 0)) {
      groupProblem(U, U.Offset,
                   "group '" + Name + "' is declared with " +
                       (Sliced ? "TRACE_GROUP" : "TRACE_GROUPS") + " at " + First + " and with " +
                       U.Macro + " here; a name identifies one kind of row");
      return;
    }
    if (Sliced) {
      if (G.SliceThreads != U.SliceThreads || G.FirstThread != U.FirstThread)
        groupProblem(U, U.Offset,
                     "group '" + Name + "' is declared with size " +
                         std::to_string(G.SliceThreads) + " and first " +
                         std::to_string(G.FirstThread) + " at " + First +
                         "; every declaration of a name must give the same size and first");
      return;
    }
    if (D.LeadAtEntry && U.LeadValue && *U.LeadValue != D.Lead)
      groupProblem(U, U.LeadAt,
                   "group '" + Name + "' is declared with lead " + std::to_string(D.Lead) +
                       " at " + First +
                       "; every declaration of a name must name the same lead thread (a name "
                       "identifies one row, written by one thread)");
    else if (!U.LeadValue)
      D.LeadAtEntry = false;
  }

  /// Every group of the kernel is constructed at its entry, on the brace's own line (so the
  /// twin's lines stay those of the source): a group declared in a loop or in several branches
  /// keeps one row and one cursor for the whole kernel.
  void emitGroupObjects(const KernelMapModel &M, const KernelDecl &Kernel,
                        const std::set<std::vector<unsigned>> &Together) {
    if (M.Groups.empty() || Kernel.Body.End <= Kernel.Body.Begin)
      return;
    // Rows before each group: constant until a sliced group, whose row count follows from the
    // block size.
    unsigned Fixed = 0;
    std::string Sliced;
    std::vector<std::string> RowOf;
    for (const MapGroup &G : M.Groups) {
      RowOf.push_back(std::to_string(Fixed) + Sliced);
      if (!G.SliceThreads) {
        ++Fixed;
        continue;
      }
      Sliced += " + cutrace::slices_in(cutrace::cta_threads(), " + std::to_string(G.SliceThreads) +
                ", " + std::to_string(G.FirstThread) + ")";
    }
    std::string Rows = std::to_string(Fixed) + Sliced;
    std::string Text;
    if (!Sliced.empty()) {
      Text += " const uint32_t __cutrace_rows = " + Rows + ";";
      Rows = "__cutrace_rows";
    }
    std::vector<std::string> Writers;
    for (size_t I = 0; I < M.Groups.size(); ++I) {
      const MapGroup &G = M.Groups[I];
      Writers.push_back(G.SliceThreads ? "cutrace::Slices{" + std::to_string(G.SliceThreads) +
                                             ", " + std::to_string(G.FirstThread) + "}"
                        : Declared[I].LeadAtEntry ? std::to_string(Declared[I].Lead)
                                                  : std::string("cutrace::LeadAtDeclaration{}"));
    }
    if (OnCallPath) {
      // One roster holds them all: a callee reaches any of them from the group it is handed.
      std::string Indices, RowList, WriterList;
      for (size_t I = 0; I < M.Groups.size(); ++I) {
        Indices += (I ? ", " : "") + std::to_string(I);
        RowList += (I ? ", " : "") + RowOf[I];
        WriterList += ", " + Writers[I];
      }
      Text += " cutrace::Roster<" + groupType + ", cutrace::Indices<" + Indices +
              ">> __cutrace_roster(__cutrace_slots, " + Rows + ", {" + RowList + "}" + WriterList +
              ");";
      for (size_t I = 0; I < M.Groups.size(); ++I)
        Text += " auto &" + groupVar(M, I) + " = __cutrace_roster.template group<" +
                std::to_string(I) + ">();";
    } else {
      for (size_t I = 0; I < M.Groups.size(); ++I)
        Text += " " + groupType + " " + groupVar(M, I) + "(__cutrace_slots, " + RowOf[I] + ", " +
                Rows + ", " + Writers[I] + ");";
    }
    // Groups in effect together, each WriterOf of the group declared last and those before it.
    std::set<std::vector<unsigned>> Written;
    for (const std::vector<unsigned> &Chain : Together)
      for (size_t From = Chain.size() - 1; From-- > 0;) {
        std::vector<unsigned> Tail(Chain.begin() + From, Chain.end());
        if (Written.insert(Tail).second)
          Text += " cutrace::WriterOf " + writerOf(M, Tail) + "(" + groupVar(M, Tail.front()) +
                  ", " + writerOf(M, {Tail.begin() + 1, Tail.end()}) + ");";
      }
    // After the opening brace, `{` or the digraph `<%`.
    unsigned Open =
        Kernel.Body.Begin + (Buffer.substr(Kernel.Body.Begin).starts_with("<%") ? 2 : 1);
    edit({Open, Open}, Text);
  }

  unsigned laneId(KernelMapModel &M, const std::string &Lane) {
    auto [It, New] = LaneIds.try_emplace(Lane, M.Lanes.size());
    if (New)
      M.Lanes.push_back(Lane);
    return It->second;
  }

  std::string payload(const Annotation &A) const {
    std::optional<Span> P = A.argWithRole(ArgRole::Payload);
    return P ? "(" + text(*P).str() + ")" : "0";
  }

  std::string expand(KernelMapModel &M, const Annotation &A, const std::string &GroupVar,
                     unsigned Group, const AnnotationUse &U) {
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

  /// A scope object declared straight in a switch body would be jumped over by a later case.
  void checkSwitchPlacement(const AnnotationUse &U, const Annotation &A) {
    // A callee's group declaration declares a reference to the kernel's group.
    bool DeclaresObject = isScopedRangeKind(A.Kind) || A.Kind == AnnotationKind::RangeStart ||
                          (isGroupKind(A.Kind) && U.Side == FunctionSide::Device);
    if (DeclaresObject && U.BlockIsSwitchBody && !U.LaterCaseLabels.empty())
      Plan.Problems.push_back(
          {A.MacroOffset, A.spelling().Macro.str() +
                              " directly in a switch body would be jumped over by a later case "
                              "label; put this case's statements in braces"});
  }

  void addSlotsParameter(const KernelDecl &Kernel) {
    for (Edit &E : slotsParameterEdits(Buffer, Kernel))
      edit(E.Range, std::move(E.Text));
  }
};

} // namespace

std::string spelledFrom(llvm::StringRef FromDir, llvm::StringRef To) {
  auto F = llvm::sys::path::begin(FromDir), FE = llvm::sys::path::end(FromDir);
  auto T = llvm::sys::path::begin(To), TE = llvm::sys::path::end(To);
  for (; F != FE && T != TE && *F == *T; ++F, ++T)
    ;
  llvm::SmallString<256> Out;
  for (; F != FE; ++F)
    llvm::sys::path::append(Out, "..");
  for (; T != TE; ++T)
    llvm::sys::path::append(Out, *T);
  return Out.str().str();
}

namespace {

void planIncludes(llvm::StringRef Buffer, const ScanResult &Scan, const LineIndex &Lines,
                  const TracedOptions &Options, TracedPlan &Plan) {
  std::string Includes = "#include <cutrace/traced.h>\n#include \"" + Options.MapInclude + "\"";
  std::string Banner = std::string(TracedBanner) + " from " +
                       escapeControls(Options.SourceName, ShownOn::CommentLine) +
                       "; edit the source, not this file.\n";
  // Dispatchers need nothing but nvcc's own macros: they go first, before any code can call them.
  for (const auto &[Name, Definition] : Plan.Routes)
    Banner += Definition;
  std::string File = lineFile(Options);
  // After a UTF-8 byte-order mark, which must stay the first bytes of the file.
  unsigned Top = Buffer.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  if (!Options.WithRuntime) {
    Plan.Edits.push_back({{Top, Top}, Banner + "#line 1 " + File + "\n"});
    return;
  }
  if (Scan.IncludeDirectives.empty()) {
    Plan.Edits.push_back({{Top, Top}, Banner + Includes + "\n#line 1 " + File + "\n"});
    return;
  }
  Plan.Edits.push_back({{Top, Top}, Banner + "#line 1 " + File + "\n"});
  // The two includes take one line more than the directive they replace.
  for (const Span &S : Scan.IncludeDirectives)
    Plan.Edits.push_back(
        {S, Includes + "\n" + Lines.lineDirective(Lines.line(S.Begin) + 1, File)});
}

/// Includes of headers that have a traced copy name the copy; a copy's own "..." includes name
/// their files by full path, since the copy does not sit beside them.
void planRedirects(llvm::StringRef Buffer, const SourceModel &Model, const TracedOptions &Options,
                   TracedPlan &Plan) {
  for (const IncludeSite &I : Model.Includes) {
    if (I.FileName.End <= I.FileName.Begin || I.FileName.End > Buffer.size())
      continue;
    auto Shadow = Options.ShadowOf.find(I.Resolved);
    if (Shadow != Options.ShadowOf.end())
      Plan.Edits.push_back({I.FileName, "\"" + Shadow->second + "\""});
    else if (!Options.QuoteIncludesFrom.empty() && Buffer[I.FileName.Begin] == '"' &&
             !I.Resolved.empty())
      Plan.Edits.push_back(
          {I.FileName, "\"" + spelledFrom(Options.QuoteIncludesFrom, I.Resolved) + "\""});
  }
}

/// Annotations no parse saw (an #if branch inactive for every parsed arch) cannot be expanded:
/// the traced build drops them, as strip does, rather than leave a raw macro call.
void warnUnexpanded(const ScanResult &Scan, const llvm::DenseSet<unsigned> &Expanded,
                    TracedPlan &Plan) {
  for (const Annotation &A : Scan.Annotations)
    if (!Expanded.contains(A.MacroOffset))
      warnAt(Plan, A.MacroOffset,
             A.spelling().Macro.str() +
                 " is in code that no parsed configuration compiles (an inactive #if branch); "
                 "the traced build omits it and it records nothing. Give the build's arch "
                 "list (e.g. -gencode flags after --) so that a parse sees it");
}

} // namespace

namespace {

/// One file's part of the plan while its translation unit is planned.
struct TracedFile {
  TracedFile(const TracedInput &In, int Id)
      : Buffer(In.Buffer), Scan(*In.Scan), Model(*In.Model), Options(In.Options), Id(Id),
        Lines(In.Buffer) {}
  llvm::StringRef Buffer;
  const ScanResult &Scan;
  const SourceModel &Model;
  TracedOptions Options;
  int Id;
  LineIndex Lines;
  AnnotationsByOffset LexicalAt;
  std::map<int, std::vector<const AnnotationUse *>> UsesByHelper, UsesByKernel;
  std::vector<std::string> Keys; // by helper index
  HelperGraph Helpers;
  TracedPlan Plan;
  std::vector<Edit> TwinEdits;
  llvm::DenseSet<unsigned> Expanded;
  std::map<int, TracedTwin> Twins;
  std::vector<int> AutoKernels; // --auto: kernels given automatic ranges

  KernelPlanner planner(UnitHelpers &Unit) {
    return KernelPlanner(Buffer, Scan.Annotations, LexicalAt, Options, Lines, Plan, TwinEdits, Unit,
                         Id);
  }
};

void prepare(TracedFile &F) {
  F.Plan.Map.Source = F.Options.SourceName;
  for (const Annotation &A : F.Scan.Annotations)
    F.LexicalAt.try_emplace(A.MacroOffset, &A);
  F.UsesByHelper = usesByHelper(F.Model);
  F.Keys = helperKeys(F.Model, F.Lines);
}

/// The file's call graph with what the unit knows so far of other files' functions; true when
/// it taught the unit something new about its own.
bool publishFacts(TracedFile &F, UnitHelpers &Unit) {
  F.Helpers = helperGraph(F.Model, F.UsesByHelper, F.Keys, Unit);
  bool Changed = false;
  for (size_t H = 0; H < F.Model.Helpers.size(); ++H) {
    if (!F.Model.Helpers[H].DefinedIn.empty())
      continue;
    HelperFacts &Known = Unit.Facts[F.Keys[H]];
    HelperFacts Now = F.Helpers.facts(H);
    HelperFacts Merged{Known.Traced || Now.Traced, Known.ReachesGroups || Now.ReachesGroups,
                       Known.RecordsIntoCaller || Now.RecordsIntoCaller};
    Changed |= !(Merged == Known);
    Known = Merged;
  }
  return Changed;
}

/// Checks what the twins need, deletes the annotations from the originals, and plans the twins
/// of the file's functions that reach annotations (their exports go to the unit).
void planFunctions(TracedFile &F, UnitHelpers &Unit) {
  checkRecursion(F.Model, F.Helpers, F.Plan);
  F.UsesByKernel = tracedKernels(F.Model, F.Helpers);
  // The originals lose their annotations exactly as strip removes them.
  std::vector<Span> Statements;
  for (const Annotation &A : F.Scan.Annotations)
    Statements.push_back(A.Statement);
  for (Edit &E : lineKeepingDeletions(F.Buffer, F.Lines, F.Options,
                                      planStripDeletions(F.Buffer, Statements)))
    F.Plan.Edits.push_back(std::move(E));

  // Functions whose twins could not be written, and jumps the twins' scope objects forbid.
  std::vector<const AnnotationUse *> Expandable;
  for (auto &[Kernel, Uses] : F.UsesByKernel) {
    checkTwinnable(F.Model.Kernels[Kernel], false,
                   Uses.empty() ? F.Model.Kernels[Kernel].Body.Begin : Uses.front()->MacroOffset,
                   F.Plan);
    Expandable.insert(Expandable.end(), Uses.begin(), Uses.end());
  }
  auto Local = [&](size_t H) { return F.Helpers.Traced[H] && F.Model.Helpers[H].DefinedIn.empty(); };
  for (size_t H = 0; H < F.Model.Helpers.size(); ++H)
    if (Local(H)) {
      auto Own = F.UsesByHelper.find(H);
      bool HasOwn = Own != F.UsesByHelper.end() && !Own->second.empty();
      checkTwinnable(F.Model.Helpers[H], true,
                     HasOwn ? Own->second.front()->MacroOffset : F.Model.Helpers[H].Body.Begin,
                     F.Plan);
      if (HasOwn)
        Expandable.insert(Expandable.end(), Own->second.begin(), Own->second.end());
    }
  checkJumpsOverScopeObjects(F.Model, Expandable, F.Lines, F.Plan.Problems);

  // Helpers first: a kernel's map lists the sites of the helpers it reaches.
  for (auto &[Helper, Uses] : F.UsesByHelper)
    for (const AnnotationUse *U : Uses)
      F.Expanded.insert(U->MacroOffset);
  for (size_t H = 0; H < F.Model.Helpers.size(); ++H)
    if (Local(H))
      F.planner(Unit).planHelper(F.Model.Helpers[H], F.UsesByHelper[H], F.Helpers, H);
  // --auto: the file's kernels without annotations get automatic ranges (docs/auto.md).
  F.AutoKernels = autoKernels(F.Model, F.UsesByKernel, F.Options, F.Plan);
  for (auto &[Kernel, Uses] : F.UsesByKernel)
    F.Twins[Kernel] = {mapSymbol(F.Model.Kernels[Kernel]), isRegistered(F.Model.Kernels[Kernel])};
  for (int Kernel : F.AutoKernels)
    F.Twins[Kernel] = {mapSymbol(F.Model.Kernels[Kernel]), isRegistered(F.Model.Kernels[Kernel])};
}

/// The functions the file's traced kernels reach, in any file.
void markReached(const TracedFile &F, UnitHelpers &Unit) {
  for (auto &[Kernel, Uses] : F.UsesByKernel)
    for (const std::string &Key :
         Unit.reachedFrom(F.Helpers.keysOf(F.Helpers.tracedCallsIn(F.Helpers.kernelCalls(Kernel)))))
      Unit.Reached.insert(Key);
}

/// The kernels' twins and maps, the helpers' twins, the launches and the includes.
void planKernels(TracedFile &F, UnitHelpers &Unit,
                 const std::map<std::string, TracedTwin> &UnitTwins) {
  for (auto &[Kernel, Uses] : F.UsesByKernel) {
    F.planner(Unit).plan(F.Model.Kernels[Kernel], Uses, F.Helpers, Kernel);
    for (const AnnotationUse *U : Uses)
      F.Expanded.insert(U->MacroOffset);
  }
  for (int Kernel : F.AutoKernels)
    planAutoKernel(F.Buffer, F.Lines, F.Model.Kernels[Kernel], F.Options, F.TwinEdits, F.Plan);
  // Annotations no parse saw are dropped from the twins' copies too.
  std::vector<Span> Unseen;
  for (const Annotation &A : F.Scan.Annotations)
    if (!F.Expanded.contains(A.MacroOffset))
      Unseen.push_back(A.Statement);
  for (Edit &E :
       lineKeepingDeletions(F.Buffer, F.Lines, F.Options, planStripDeletions(F.Buffer, Unseen)))
    F.TwinEdits.push_back(std::move(E));
  warnUnexpanded(F.Scan, F.Expanded, F.Plan);

  // Every declaration of a function with a twin gets the twin's declaration, in whichever file
  // the definition is: a call written between them reaches the twin.
  std::map<int, TracedTwin> Declared = F.Twins;
  for (size_t I = 0; I < F.Model.Kernels.size(); ++I) {
    const KernelDecl &K = F.Model.Kernels[I];
    auto It = UnitTwins.find(kernelKey(K));
    if (K.Body.End > K.Body.Begin || It == UnitTwins.end() ||
        !Declared.try_emplace(static_cast<int>(I), It->second).second)
      continue;
    checkTwinnable(K, false, K.Decls.empty() ? 0 : K.Decls.front().Name, F.Plan);
    F.Plan.Map.DeclaredElsewhere.push_back(It->second.Symbol);
    for (Edit &E : slotsParameterEdits(F.Buffer, K))
      F.TwinEdits.push_back(std::move(E));
  }
  planTwins(F.Buffer, F.Lines, F.Model, Declared, F.TwinEdits, F.Options, F.Plan);
  std::set<int> ReachedHere;
  for (size_t H = 0; H < F.Model.Helpers.size(); ++H) {
    if (!Unit.Reached.count(F.Keys[H]))
      continue;
    ReachedHere.insert(static_cast<int>(H));
    if (!F.Model.Helpers[H].DefinedIn.empty()) {
      checkTwinnable(F.Model.Helpers[H], true,
                     F.Model.Helpers[H].Decls.empty() ? 0 : F.Model.Helpers[H].Decls.front().Name,
                     F.Plan);
      F.planner(Unit).declareHelper(F.Model.Helpers[H]);
    }
  }
  planHelperTwins(F.Buffer, F.Lines, F.Model, ReachedHere, F.UsesByHelper, F.TwinEdits, F.Options,
                  F.Plan);
  // Kernels defined in another file of the unit launch through their twins too.
  std::map<int, TracedTwin> Reachable = F.Twins;
  for (size_t I = 0; I < F.Model.Kernels.size(); ++I)
    if (auto It = UnitTwins.find(kernelKey(F.Model.Kernels[I])); It != UnitTwins.end())
      Reachable.try_emplace(static_cast<int>(I), It->second);
  planLaunches(F.Buffer, F.Lines, F.Model, Reachable, F.Options, F.Plan);
  planIncludes(F.Buffer, F.Scan, F.Lines, F.Options, F.Plan);
  planRedirects(F.Buffer, F.Model, F.Options, F.Plan);
  // A callee's group declarations are checked by every kernel that reaches it: report each once.
  std::set<std::pair<unsigned, std::string>> Reported;
  std::vector<Problem> &Problems = F.Plan.Problems;
  Problems.erase(std::remove_if(Problems.begin(), Problems.end(),
                                [&](const Problem &P) {
                                  return !Reported.insert({P.Offset, P.Message}).second;
                                }),
                 Problems.end());
}

/// A recursive cycle through traced functions of several files is refused as one within a file
/// is (checkRecursion): reported at the call that closes it, in the file that writes the call.
void checkRecursionAcrossFiles(std::deque<TracedFile> &Files) {
  struct Call {
    std::string Callee;
    TracedFile *In;
    unsigned At;
    std::string Name;
  };
  std::map<std::string, std::vector<Call>> Calls; // by the caller's key
  std::map<std::string, int> FileOf;              // the file defining each key
  for (TracedFile &F : Files)
    for (size_t H = 0; H < F.Model.Helpers.size(); ++H) {
      if (!F.Model.Helpers[H].DefinedIn.empty() || !F.Helpers.Traced[H])
        continue;
      FileOf[F.Keys[H]] = F.Id;
      for (const HelperCall *C : F.Helpers.tracedCallsIn(F.Helpers.CallsIn[H]))
        Calls[F.Keys[H]].push_back(
            {F.Keys[C->Helper], &F, C->CalleeName.Begin, F.Model.Helpers[C->Helper].Name});
    }
  std::map<std::string, int> State; // 1 on the path, 2 done
  std::vector<std::string> Path;
  std::function<void(const std::string &)> Visit = [&](const std::string &Key) {
    State[Key] = 1;
    Path.push_back(Key);
    for (const Call &C : Calls[Key]) {
      if (State[C.Callee] == 0) {
        Visit(C.Callee);
        continue;
      }
      if (State[C.Callee] != 1)
        continue;
      std::set<int> FilesOnCycle;
      for (auto It = std::find(Path.begin(), Path.end(), C.Callee); It != Path.end(); ++It)
        FilesOnCycle.insert(FileOf.count(*It) ? FileOf[*It] : -1);
      if (FilesOnCycle.size() > 1) // one file's cycles are reported by checkRecursion
        C.In->Plan.Problems.push_back(
            {C.At, "recursive call of '" + C.Name +
                       "' through functions of other files: a __device__ function that reaches "
                       "annotations cannot call itself, directly or through other functions "
                       "(its twin takes the caller's group)"});
    }
    Path.pop_back();
    State[Key] = 2;
  };
  for (auto &[Key, Out] : Calls)
    if (State[Key] == 0)
      Visit(Key);
}

} // namespace

std::vector<TracedPlan> planTracedUnit(llvm::ArrayRef<TracedInput> Inputs) {
  std::deque<TracedFile> Files;
  for (size_t I = 0; I < Inputs.size(); ++I)
    Files.emplace_back(Inputs[I], static_cast<int>(I));
  UnitHelpers Unit;
  for (TracedFile &F : Files)
    prepare(F);
  // Facts only grow (a function reaches annotations or does not): repeat until none changes.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (TracedFile &F : Files)
      Changed |= publishFacts(F, Unit);
  }
  checkRecursionAcrossFiles(Files);
  for (TracedFile &F : Files)
    planFunctions(F, Unit);
  std::map<std::string, TracedTwin> UnitTwins;
  for (TracedFile &F : Files) {
    markReached(F, Unit);
    for (auto &[Kernel, Twin] : F.Twins)
      UnitTwins.try_emplace(kernelKey(F.Model.Kernels[Kernel]), Twin);
  }
  std::vector<TracedPlan> Plans;
  for (TracedFile &F : Files) {
    planKernels(F, Unit, UnitTwins);
    Plans.push_back(std::move(F.Plan));
  }
  return Plans;
}

TracedPlan planTraced(llvm::StringRef Buffer, const ScanResult &Scan, const SourceModel &Model,
                      const TracedOptions &Options) {
  return std::move(planTracedUnit({TracedInput{Buffer, &Scan, &Model, Options}}).front());
}

} // namespace cutrace
