#include "TracedRewrite.h"

#include "StringLiteral.h"
#include "Strip.h"
#include "TracedJumps.h"
#include "TracedLaunches.h"
#include "TracedRoutes.h"
#include "TracedTwins.h"

#include "LineIndex.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Path.h"
#include <algorithm>
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

/// The __device__ functions of the file that reach an annotation (directly, or by calling one
/// that does), and the calls of them.
struct HelperGraph {
  std::vector<bool> Traced;                             // by helper index
  std::vector<std::string> Key;                         // `G::sites::<Key>`, by helper index
  std::vector<std::string> TwinName;                    // by helper index
  std::vector<std::vector<const HelperCall *>> CallsIn; // calls written in each helper's body
  std::map<int, std::vector<const HelperCall *>> CallsInKernel;
  std::vector<KernelMapModel> Sites; // each traced helper's own sites, ids from 0

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
};

class KernelPlanner {
public:
  KernelPlanner(llvm::StringRef Buffer, const AnnotationsByOffset &LexicalAt,
                const TracedOptions &Options, const LineIndex &Lines, TracedPlan &Plan,
                std::vector<Edit> &TwinEdits)
      : Buffer(Buffer), LexicalAt(LexicalAt), Options(Options), Lines(Lines), Plan(Plan),
        TwinEdits(TwinEdits) {}

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
    std::vector<int> Reached = Helpers.reachedFrom(Calls);
    groupType =
        "cutrace::Group<" + std::to_string(Options.MaxEvents) +
        (Options.Clock == "globaltimer" || !Reached.empty() ? ", cutrace::Clock::" + Options.Clock
                                                            : std::string()) +
        (Reached.empty() ? ">" : ", cutrace_map::" + M.Symbol + "_sites>");

    // Groups first: their indices are fixed before any marker refers to them. A name
    // identifies a row: every declaration of one name shares one group object.
    std::vector<std::pair<const AnnotationUse *, const Annotation *>> Items;
    bool NeedsBlockGroup = false;
    for (const AnnotationUse *U : Uses)
      if (const Annotation *A = lexical(U->MacroOffset))
        Items.push_back({U, A});
    // Only groups can own a marker: searching them alone keeps a kernel of many markers linear.
    std::vector<std::pair<const AnnotationUse *, const Annotation *>> Groups;
    for (auto [U, A] : Items)
      if (isGroupKind(A->Kind))
        Groups.push_back({U, A});
    for (auto [U, A] : Items)
      if (!isGroupKind(A->Kind) && A->Kind != AnnotationKind::Dag &&
          !groupFor(Groups, U->MacroOffset))
        NeedsBlockGroup = true;
    for (const HelperCall *C : Calls)
      NeedsBlockGroup |= !groupFor(Groups, C->CalleeName.Begin);
    if (NeedsBlockGroup) {
      M.Groups.push_back({"block", "0"});
      Declared.push_back({0, true, 0});
      IndexOfName["block"] = 0;
    }
    for (auto [U, A] : Groups)
      declareGroup(M, *U, *A);
    emitGroupObjects(M, Kernel);

    for (auto [U, A] : Items) {
      M.Annotations.push_back(
          {A->spelling().Macro.str(), locationAt(Lines, Options.SourceName, A->MacroOffset)});
      checkSwitchPlacement(*U, *A);
      const AnnotationUse *G = groupFor(Groups, U->MacroOffset);
      unsigned Group = G ? GroupIndex[G->MacroOffset] : 0;
      std::string Text = expand(M, *A, groupVar(M, Group), Group, *U);
      bool WholeStatement =
          A->Kind == AnnotationKind::Dag || (isGroupKind(A->Kind) && Declared[Group].LeadAtEntry);
      edit(WholeStatement ? A->Statement : A->Call, std::move(Text));
    }
    // Calls of helpers that reach annotations go to their twins, with the group in scope.
    for (const HelperCall *C : Calls) {
      const AnnotationUse *G = groupFor(Groups, C->CalleeName.Begin);
      callTwin(*C, Helpers, groupVar(M, G ? GroupIndex[G->MacroOffset] : 0));
    }
    for (int H : Reached)
      addHelperSites(M, Helpers, H);
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
  /// the group its caller passes (`__cutrace_group`), at site ids the group's type names, and
  /// its calls of other such functions pass that group on. Returns its sites, numbered from 0.
  KernelMapModel planHelper(const KernelDecl &Helper, std::vector<const AnnotationUse *> Uses,
                            const HelperGraph &Helpers, int HelperIndex) {
    std::sort(Uses.begin(), Uses.end(),
              [](auto *A, auto *B) { return A->MacroOffset < B->MacroOffset; });
    KernelMapModel M;
    M.Kernel = Helper.QualifiedName;
    SiteIdPrefix = "__CutraceGroup::sites::" + Helpers.Key[HelperIndex];
    for (const AnnotationUse *U : Uses)
      if (const Annotation *A = lexical(U->MacroOffset)) {
        checkSwitchPlacement(*U, *A);
        std::string Text = expand(M, *A, "__cutrace_group", 0, *U);
        edit(A->Kind == AnnotationKind::Dag ? A->Statement : A->Call, std::move(Text));
      }
    for (const HelperCall *C : Helpers.tracedCallsIn(Helpers.CallsIn[HelperIndex]))
      callTwin(*C, Helpers, "__cutrace_group");
    addGroupParameter(Helper);
    return M;
  }

private:
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
  void addHelperSites(KernelMapModel &M, const HelperGraph &Helpers, int H) {
    const KernelMapModel &Own = Helpers.Sites[H];
    unsigned Base = M.Sites.size();
    M.HelperSiteBases.push_back({Helpers.Key[H], Base});
    for (MapSite S : Own.Sites) {
      S.Id += Base;
      S.Lane = laneId(M, Own.Lanes[S.Lane]);
      S.Group = 0;
      S.Helper = Own.Kernel;
      M.Sites.push_back(std::move(S));
    }
    for (const auto &F : Own.Flows)
      if (std::find(M.Flows.begin(), M.Flows.end(), F) == M.Flows.end())
        M.Flows.push_back(F);
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
        edit({D.OuterTemplateParamsEnd, D.OuterTemplateParamsEnd}, " template <class __CutraceGroup>");
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
  const AnnotationsByOffset &LexicalAt;
  const TracedOptions &Options;
  const LineIndex &Lines;
  TracedPlan &Plan;
  std::vector<Edit> &TwinEdits; // edits of the twin's copy, by offsets in Buffer
  std::string groupType;
  std::string SiteIdPrefix;              // a helper's twin: its sites are `G::sites::<key> + k`
  std::set<unsigned> Routed;             // ')' of the calls sent to twins
  std::map<unsigned, size_t> GroupIndex; // a group declaration's offset -> its group
  std::map<std::string, size_t> IndexOfName;
  /// What every declaration of one group name agreed on.
  struct GroupDeclaration {
    unsigned FirstOffset = 0;
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

  /// The innermost TRACE_GROUP before Offset whose block still encloses it (inner shadows outer).
  const AnnotationUse *
  groupFor(const std::vector<std::pair<const AnnotationUse *, const Annotation *>> &Groups,
           unsigned Offset) const {
    const AnnotationUse *Best = nullptr;
    for (auto [U, A] : Groups)
      if (isGroupKind(A->Kind) && U->MacroOffset < Offset && U->Block.Begin < Offset &&
          Offset < U->Block.End && (!Best || Best->Block.Begin <= U->Block.Begin))
        Best = U;
    return Best;
  }

  std::string groupVar(const KernelMapModel &M, size_t Index) const {
    if (Index == 0 && M.Groups[0].Name == "block" && !M.Groups[0].SliceThreads)
      return "__cutrace_block";
    return "__cutrace_" + identifierFrom(M.Groups[Index].Name) + "_" + std::to_string(Index);
  }

  std::string where(unsigned Offset) const { return locationAt(Lines, Options.SourceName, Offset); }

  /// Gives a group declaration its group: the one its name already has, or a new one. The
  /// declarations of one name must agree on what the row is.
  void declareGroup(KernelMapModel &M, const AnnotationUse &U, const Annotation &A) {
    std::string Name = literal(A.Args[0]);
    bool Sliced = A.Kind == AnnotationKind::Groups;
    if (Sliced && !U.SliceThreads) {
      if (!hasErrors(U.Problems))
        Plan.Problems.push_back({A.Args[1].Begin,
                                 "size of TRACE_GROUPS must be an integer constant expression that "
                                 "does not depend on a template parameter (the rows of a CTA are "
                                 "counted from it at the launch)"});
      return;
    }
    auto [It, New] = IndexOfName.try_emplace(Name, M.Groups.size());
    GroupIndex[U.MacroOffset] = It->second;
    if (New) {
      MapGroup G{Name, Sliced ? "slice" : text(A.Args[1]).str()};
      if (Sliced) {
        G.SliceThreads = U.SliceThreads;
        G.FirstThread = U.FirstThread;
      }
      M.Groups.push_back(std::move(G));
      Declared.push_back(
          {A.MacroOffset, Sliced || U.LeadValue.has_value(), U.LeadValue.value_or(0)});
      return;
    }
    MapGroup &G = M.Groups[It->second];
    GroupDeclaration &D = Declared[It->second];
    std::string First = where(D.FirstOffset);
    if (Sliced != (G.SliceThreads != 0)) {
      Plan.Problems.push_back({A.MacroOffset, "group '" + Name + "' is declared with " +
                                                  (Sliced ? "TRACE_GROUP" : "TRACE_GROUPS") +
                                                  " at " + First + " and with " +
                                                  A.spelling().Macro.str() +
                                                  " here; a name identifies one kind of row"});
      return;
    }
    if (Sliced) {
      if (G.SliceThreads != U.SliceThreads || G.FirstThread != U.FirstThread)
        Plan.Problems.push_back(
            {A.MacroOffset, "group '" + Name + "' is declared with size " +
                                std::to_string(G.SliceThreads) + " and first " +
                                std::to_string(G.FirstThread) + " at " + First +
                                "; every declaration of a name must give the same size and first"});
      return;
    }
    if (D.LeadAtEntry && U.LeadValue && *U.LeadValue != D.Lead)
      Plan.Problems.push_back(
          {A.Args[1].Begin, "group '" + Name + "' is declared with lead " + std::to_string(D.Lead) +
                                " at " + First +
                                "; every declaration of a name must name the same lead "
                                "thread (a name identifies one row, written by one thread)"});
    else if (!U.LeadValue)
      D.LeadAtEntry = false;
  }

  /// Every group of the kernel is constructed at its entry, on the brace's own line (so the
  /// twin's lines stay those of the source): a group declared in a loop or in several branches
  /// keeps one row and one cursor for the whole kernel.
  void emitGroupObjects(const KernelMapModel &M, const KernelDecl &Kernel) {
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
    for (size_t I = 0; I < M.Groups.size(); ++I) {
      const MapGroup &G = M.Groups[I];
      std::string Writer = G.SliceThreads ? "cutrace::Slices{" + std::to_string(G.SliceThreads) +
                                                ", " + std::to_string(G.FirstThread) + "}"
                           : Declared[I].LeadAtEntry ? std::to_string(Declared[I].Lead)
                                                     : std::string("cutrace::LeadAtDeclaration{}");
      Text += " " + groupType + " " + groupVar(M, I) + "(__cutrace_slots, " + RowOf[I] + ", " +
              Rows + ", " + Writer + ");";
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
    bool DeclaresObject = isScopedRangeKind(A.Kind) || A.Kind == AnnotationKind::RangeStart;
    if (DeclaresObject && U.BlockIsSwitchBody && !U.LaterCaseLabels.empty())
      Plan.Problems.push_back(
          {A.MacroOffset, A.spelling().Macro.str() +
                              " directly in a switch body would be jumped over by a later case "
                              "label; put this case's statements in braces"});
  }

  /// The twin's name and trailing parameter, in the copy of every declaration written here
  /// (the first one carries the default, as C++ wants it once).
  void addSlotsParameter(const KernelDecl &Kernel) {
    bool First = true;
    for (const KernelDeclSite &D : Kernel.Decls) {
      if (D.InMacro)
        continue;
      edit({D.Name, D.Name + static_cast<unsigned>(Kernel.Name.size())}, twinName(Kernel.Name));
      if (Kernel.HasParameterPack) {
        // First: a parameter after a pack could not be deduced (launches pass it first too).
        edit({D.ParamBegin + 1, D.ParamBegin + 1},
             std::string("cutrace::Slots* __cutrace_slots") + (D.HasParams ? ", " : ""));
        continue;
      }
      std::string Param =
          std::string("cutrace::Slots* __cutrace_slots") + (First ? " = nullptr" : "");
      First = false;
      if (D.HasParams) {
        edit({D.ParamEnd, D.ParamEnd}, ", " + Param);
        continue;
      }
      // `k()` or `k(void)`: the parameter replaces whatever sits between the parentheses.
      size_t LParen = Buffer.substr(0, D.ParamEnd).rfind('(');
      edit({static_cast<unsigned>(LParen + 1), D.ParamEnd}, Param);
    }
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

std::map<std::string, TracedTwin> twinsOf(const SourceModel &Model) {
  std::map<std::string, TracedTwin> Twins;
  for (const AnnotationUse &U : Model.Uses)
    if (U.Side == FunctionSide::Global && U.Kernel >= 0) {
      const KernelDecl &K = Model.Kernels[U.Kernel];
      Twins[kernelKey(K)] = {mapSymbol(K), isRegistered(K)};
    }
  return Twins;
}

SourceModel mergeModels(llvm::ArrayRef<ParseOutcome> Passes) {
  std::vector<const SourceModel *> Models;
  for (const ParseOutcome &Pass : Passes)
    Models.push_back(&Pass.Model);
  return mergeSourceModels(Models);
}

SourceModel mergeSourceModels(llvm::ArrayRef<const SourceModel *> Models) {
  SourceModel Merged;
  std::map<std::string, int> KernelByName, HelperByKey;
  // What Merged already holds, by offset.
  llvm::DenseSet<unsigned> UseOffsets, LaunchOffsets, ValueOffsets, IncludeOffsets;
  std::set<std::pair<unsigned, unsigned>> JumpEnds;
  std::set<std::pair<unsigned, int>> CallsSeen; // (')' of the call, helper)
  for (const SourceModel *PassModel : Models) {
    const SourceModel &Pass = *PassModel;
    std::vector<int> Remap;
    for (const IncludeSite &I : Pass.Includes)
      if (IncludeOffsets.insert(I.FileName.Begin).second)
        Merged.Includes.push_back(I);
    for (const KernelDecl &K : Pass.Kernels) {
      auto [It, New] = KernelByName.try_emplace(kernelKey(K), Merged.Kernels.size());
      if (New)
        Merged.Kernels.push_back(K);
      else if (K.Instantiated)
        Merged.Kernels[It->second].Instantiated = true;
      if (!New && Merged.Kernels[It->second].Body.End == 0 && K.Body.End != 0) {
        // A pass that saw the definition knows every declaration up to it.
        Merged.Kernels[It->second].Body = K.Body;
        Merged.Kernels[It->second].Decls = K.Decls;
        Merged.Kernels[It->second].DefinitionVisible = true;
      }
      Remap.push_back(It->second);
    }
    // Overloads share a name: a helper is its name and where its body is.
    std::vector<int> HelperRemap;
    for (const KernelDecl &H : Pass.Helpers) {
      std::string Key = H.QualifiedName + "@" + std::to_string(H.Body.Begin);
      auto [It, New] = HelperByKey.try_emplace(Key, Merged.Helpers.size());
      if (New)
        Merged.Helpers.push_back(H);
      HelperRemap.push_back(It->second);
    }
    for (HelperCall C : Pass.HelperCalls) {
      C.Helper = HelperRemap[C.Helper];
      if (CallsSeen.insert({C.RParen, C.Helper}).second)
        Merged.HelperCalls.push_back(C);
    }
    for (AnnotationUse U : Pass.Uses) {
      if (!UseOffsets.insert(U.MacroOffset).second)
        continue;
      if (U.Helper >= 0)
        U.Helper = HelperRemap[U.Helper];
      if (U.Kernel >= 0)
        U.Kernel = Remap[U.Kernel];
      Merged.Uses.push_back(std::move(U));
    }
    for (LaunchSite L : Pass.Launches) {
      if (!LaunchOffsets.insert(L.Offset).second)
        continue;
      if (L.Kernel >= 0)
        L.Kernel = Remap[L.Kernel];
      Merged.Launches.push_back(std::move(L));
    }
    for (const Jump &J : Pass.Jumps)
      if (JumpEnds.insert({J.From, J.To}).second)
        Merged.Jumps.push_back(J);
    for (KernelValueUse V : Pass.ValueUses) {
      if (!ValueOffsets.insert(V.Offset).second)
        continue;
      V.Kernel = Remap[V.Kernel];
      Merged.ValueUses.push_back(V);
    }
  }
  return Merged;
}

namespace {

void planIncludes(llvm::StringRef Buffer, const ScanResult &Scan, const LineIndex &Lines,
                  const TracedOptions &Options, TracedPlan &Plan) {
  std::string Includes = "#include <cutrace/traced.h>\n#include \"" + Options.MapInclude + "\"";
  std::string Banner = std::string(TracedBanner) + " from " + escapeForComment(Options.SourceName) +
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
        {S, Includes + "\n#line " + std::to_string(Lines.line(S.Begin) + 1) + " " + File});
}

/// Strip's deletions; one that removes whole lines leaves a #line in their place, so the lines
/// after it keep their numbers in the traced file.
std::vector<Edit> lineKeepingDeletions(llvm::StringRef Buffer, const LineIndex &Lines,
                                       const TracedOptions &Options,
                                       const std::vector<Span> &Deletions) {
  std::vector<Edit> Edits;
  for (const Span &D : Deletions) {
    llvm::StringRef Gone = Buffer.substr(D.Begin, D.size());
    bool AtLineStart = D.Begin == 0 || Buffer[D.Begin - 1] == '\n';
    if (Gone.contains('\n') && AtLineStart && Gone.ends_with("\n") && D.End < Buffer.size())
      Edits.push_back(
          {D, "#line " + std::to_string(Lines.line(D.End)) + " " + lineFile(Options) + "\n"});
    else
      Edits.push_back({D, ""});
  }
  return Edits;
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

/// Which helpers reach an annotation, and where each call is written; a recursive cycle through
/// such helpers is an error (each call would need the group, and recursion keeps it in memory).
HelperGraph helperGraph(const SourceModel &Model,
                        std::map<int, std::vector<const AnnotationUse *>> &UsesByHelper,
                        const LineIndex &Lines, TracedPlan &Plan) {
  HelperGraph G;
  size_t N = Model.Helpers.size();
  G.Traced.assign(N, false);
  G.CallsIn.resize(N);
  G.Sites.resize(N);
  for (size_t H = 0; H < N; ++H) {
    G.Key.push_back(identifierFrom(Model.Helpers[H].QualifiedName) + "_" +
                    std::to_string(Lines.line(Model.Helpers[H].Body.Begin)));
    G.TwinName.push_back(twinName(Model.Helpers[H].Name));
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
  for (const auto &[H, Uses] : UsesByHelper)
    G.Traced[H] = true;
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (size_t H = 0; H < N; ++H)
      for (const HelperCall *C : G.CallsIn[H])
        if (!G.Traced[H] && G.Traced[C->Helper])
          G.Traced[H] = Changed = true;
  }
  // Depth-first over traced helpers: a call back into the current path closes a cycle.
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
  return G;
}

} // namespace

TracedPlan planTraced(llvm::StringRef Buffer, const ScanResult &Scan, const SourceModel &Model,
                      const TracedOptions &Options) {
  TracedPlan Plan;
  Plan.Map.Source = Options.SourceName;
  LineIndex Lines(Buffer);
  AnnotationsByOffset LexicalAt;
  for (const Annotation &A : Scan.Annotations)
    LexicalAt.try_emplace(A.MacroOffset, &A);
  std::map<int, std::vector<const AnnotationUse *>> UsesByKernel, UsesByHelper;
  for (const AnnotationUse &U : Model.Uses)
    if (U.Side == FunctionSide::Global && U.Kernel >= 0)
      UsesByKernel[U.Kernel].push_back(&U);
    else if (U.Side == FunctionSide::Device && U.Helper >= 0)
      UsesByHelper[U.Helper].push_back(&U);
  HelperGraph Helpers = helperGraph(Model, UsesByHelper, Lines, Plan);

  // The originals lose their annotations exactly as strip removes them.
  std::vector<Span> Statements;
  for (const Annotation &A : Scan.Annotations)
    Statements.push_back(A.Statement);
  std::vector<Span> Deletions = planStripDeletions(Buffer, Statements);
  for (Edit &E : lineKeepingDeletions(Buffer, Lines, Options, Deletions))
    Plan.Edits.push_back(std::move(E));

  // Functions whose twins could not be written, and jumps the twins' scope objects forbid.
  std::vector<const AnnotationUse *> Expandable;
  // A kernel that reaches annotations only through its calls has a twin too (its markers record
  // into the block group), whatever instantiation makes the call reach them.
  for (size_t K = 0; K < Model.Kernels.size(); ++K)
    if (!Helpers.tracedCallsIn(Helpers.kernelCalls(K)).empty())
      UsesByKernel[K];
  for (auto &[Kernel, Uses] : UsesByKernel) {
    const std::vector<const HelperCall *> &Calls = Helpers.kernelCalls(Kernel);
    checkTwinnable(Model.Kernels[Kernel], false,
                   Uses.empty() ? Calls.front()->CalleeName.Begin : Uses.front()->MacroOffset,
                   Plan);
    Expandable.insert(Expandable.end(), Uses.begin(), Uses.end());
  }
  for (size_t H = 0; H < Model.Helpers.size(); ++H)
    if (Helpers.Traced[H]) {
      auto Own = UsesByHelper.find(H);
      bool HasOwn = Own != UsesByHelper.end() && !Own->second.empty();
      checkTwinnable(Model.Helpers[H], true,
                     HasOwn ? Own->second.front()->MacroOffset : Model.Helpers[H].Body.Begin, Plan);
      if (HasOwn)
        Expandable.insert(Expandable.end(), Own->second.begin(), Own->second.end());
    }
  checkJumpsOverScopeObjects(Model, Expandable, Lines, Plan.Problems);

  std::vector<Edit> TwinEdits;
  std::map<int, TracedTwin> Twins;
  llvm::DenseSet<unsigned> Expanded;
  // Helpers first: a kernel's map lists the sites of the helpers it reaches.
  for (auto &[Helper, Uses] : UsesByHelper)
    for (const AnnotationUse *U : Uses)
      Expanded.insert(U->MacroOffset);
  for (size_t H = 0; H < Model.Helpers.size(); ++H)
    if (Helpers.Traced[H])
      Helpers.Sites[H] = KernelPlanner(Buffer, LexicalAt, Options, Lines, Plan, TwinEdits)
                             .planHelper(Model.Helpers[H], UsesByHelper[H], Helpers, H);
  std::set<int> ReachedHelpers;
  for (auto &[Kernel, Uses] : UsesByKernel) {
    KernelPlanner(Buffer, LexicalAt, Options, Lines, Plan, TwinEdits)
        .plan(Model.Kernels[Kernel], Uses, Helpers, Kernel);
    for (int H : Helpers.reachedFrom(Helpers.tracedCallsIn(Helpers.kernelCalls(Kernel))))
      ReachedHelpers.insert(H);
    const KernelDecl &K = Model.Kernels[Kernel];
    Twins[Kernel] = {Plan.Map.Kernels.back().Symbol, isRegistered(K)};
    for (const AnnotationUse *U : Uses)
      Expanded.insert(U->MacroOffset);
  }
  // Annotations no parse saw are dropped from the twins' copies too.
  std::vector<Span> Unseen;
  for (const Annotation &A : Scan.Annotations)
    if (!Expanded.contains(A.MacroOffset))
      Unseen.push_back(A.Statement);
  for (Edit &E : lineKeepingDeletions(Buffer, Lines, Options, planStripDeletions(Buffer, Unseen)))
    TwinEdits.push_back(std::move(E));
  warnUnexpanded(Scan, Expanded, Plan);

  planTwins(Buffer, Lines, Model, Twins, TwinEdits, Options, Plan);
  planHelperTwins(Buffer, Lines, Model, ReachedHelpers, UsesByHelper, TwinEdits, Options, Plan);
  // Kernels defined in an included project header are launched through their twins too.
  std::map<int, TracedTwin> Reachable = Twins;
  for (size_t I = 0; I < Model.Kernels.size(); ++I) {
    auto It = Options.HeaderTwins.find(kernelKey(Model.Kernels[I]));
    if (It != Options.HeaderTwins.end())
      Reachable.try_emplace(static_cast<int>(I), It->second);
  }
  planLaunches(Buffer, Model, Reachable, Plan);
  planIncludes(Buffer, Scan, Lines, Options, Plan);
  planRedirects(Buffer, Model, Options, Plan);
  return Plan;
}

} // namespace cutrace
