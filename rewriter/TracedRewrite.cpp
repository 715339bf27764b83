#include "TracedRewrite.h"

#include "StringLiteral.h"

#include "LineIndex.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Error.h"
#include <algorithm>
#include <map>

namespace cutrace {
namespace {

/// `file:line:col` of a byte offset, for map locations.
std::string locationAt(const LineIndex &Lines, const std::string &File, unsigned Offset) {
  return File + ":" + std::to_string(Lines.line(Offset)) + ":" +
         std::to_string(Lines.column(Offset));
}

std::string identifierFrom(llvm::StringRef Name) {
  std::string Out;
  for (char C : Name)
    Out += (std::isalnum(static_cast<unsigned char>(C)) ? C : '_');
  return Out;
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
  KernelPlanner(llvm::StringRef Buffer, const AnnotationsByOffset &LexicalAt,
                const TracedOptions &Options, const LineIndex &Lines, TracedPlan &Plan)
      : Buffer(Buffer), LexicalAt(LexicalAt), Options(Options), Lines(Lines), Plan(Plan) {}

  void plan(const KernelDecl &Kernel, std::vector<const AnnotationUse *> Uses) {
    std::sort(Uses.begin(), Uses.end(),
              [](auto *A, auto *B) { return A->MacroOffset < B->MacroOffset; });
    KernelMapModel M;
    M.Kernel = Kernel.QualifiedName;
    M.Symbol = identifierFrom(Kernel.QualifiedName);
    M.MaxEvents = Options.MaxEvents;
    M.Clock = Options.Clock;
    groupType = "cutrace::Group<" + std::to_string(Options.MaxEvents) +
                (Options.Clock == "globaltimer" ? ", cutrace::Clock::globaltimer>" : ">");

    // Groups first: their indices are fixed before any marker refers to them.
    std::vector<std::pair<const AnnotationUse *, const Annotation *>> Items;
    bool NeedsBlockGroup = false;
    for (const AnnotationUse *U : Uses)
      if (const Annotation *A = lexical(U->MacroOffset))
        Items.push_back({U, A});
    // Only groups can own a marker: searching them alone keeps a kernel of many markers linear.
    std::vector<std::pair<const AnnotationUse *, const Annotation *>> Groups;
    for (auto [U, A] : Items)
      if (A->Kind == AnnotationKind::Group)
        Groups.push_back({U, A});
    for (auto [U, A] : Items)
      if (A->Kind != AnnotationKind::Group && A->Kind != AnnotationKind::Dag &&
          !groupFor(Groups, U->MacroOffset))
        NeedsBlockGroup = true;
    if (NeedsBlockGroup)
      M.Groups.push_back({"block", "0"});
    for (auto [U, A] : Items)
      if (A->Kind == AnnotationKind::Group) {
        GroupIndex[U->MacroOffset] = M.Groups.size();
        M.Groups.push_back({literal(A->Args[0]), text(A->Args[1]).str()});
      }
    unsigned NumGroups = M.Groups.size();
    if (NeedsBlockGroup && Kernel.Body.End > Kernel.Body.Begin)
      edit({Kernel.Body.Begin + 1, Kernel.Body.Begin + 1},
           "\n" + bodyIndent(Kernel.Body) + groupType + " __cutrace_block(__cutrace_slots, 0, " +
               std::to_string(NumGroups) + ", 0);");

    for (auto [U, A] : Items) {
      M.Annotations.push_back(
          {A->spelling().Macro.str(), locationAt(Lines, Options.SourceName, A->MacroOffset)});
      checkSwitchPlacement(*U, *A);
      const AnnotationUse *G = groupFor(Groups, U->MacroOffset);
      std::string GroupVar = G ? groupVar(M, *G) : "__cutrace_block";
      unsigned Group = G ? GroupIndex[G->MacroOffset] : 0;
      std::string Text = expand(M, *A, GroupVar, Group, NumGroups, *U);
      edit(A->Kind == AnnotationKind::Dag ? A->Statement : A->Call, std::move(Text));
    }
    addSlotsParameter(Kernel);
    Plan.KernelSpans.push_back({Kernel.QualifiedName, Kernel.Body});
    Plan.Map.Kernels.push_back(std::move(M));
  }

private:
  llvm::StringRef Buffer;
  const AnnotationsByOffset &LexicalAt;
  const TracedOptions &Options;
  const LineIndex &Lines;
  TracedPlan &Plan;
  std::string groupType;
  std::map<unsigned, size_t> GroupIndex;
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

  /// The indentation of the body's first statement line, so the implicit group's declaration
  /// reads like the code around it.
  std::string bodyIndent(Span Body) const {
    llvm::StringRef Inside = Buffer.substr(Body.Begin + 1, Body.size() - 1);
    size_t NL = Inside.find('\n');
    if (NL != llvm::StringRef::npos) {
      llvm::StringRef Next = Inside.substr(NL + 1);
      llvm::StringRef Indent = Next.take_while([](char C) { return C == ' ' || C == '\t'; });
      if (!Indent.empty() && Indent.size() < Next.size() && Next[Indent.size()] != '}')
        return Indent.str();
    }
    return "  ";
  }
  void edit(Span S, std::string Text) { Plan.Edits.push_back({S, std::move(Text)}); }

  const Annotation *lexical(unsigned MacroOffset) const { return LexicalAt.lookup(MacroOffset); }

  /// The innermost TRACE_GROUP before Offset whose block still encloses it (inner shadows outer).
  const AnnotationUse *
  groupFor(const std::vector<std::pair<const AnnotationUse *, const Annotation *>> &Groups,
           unsigned Offset) const {
    const AnnotationUse *Best = nullptr;
    for (auto [U, A] : Groups)
      if (A->Kind == AnnotationKind::Group && U->MacroOffset < Offset && U->Block.Begin < Offset &&
          Offset < U->Block.End && (!Best || Best->Block.Begin <= U->Block.Begin))
        Best = U;
    return Best;
  }

  std::string groupVar(const KernelMapModel &M, const AnnotationUse &G) {
    size_t Index = GroupIndex[G.MacroOffset];
    return "__cutrace_" + identifierFrom(M.Groups[Index].Name) + "_" + std::to_string(Index);
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
                     unsigned Group, unsigned NumGroups, const AnnotationUse &U) {
    if (A.Kind == AnnotationKind::Group)
      return groupType + " " + groupVar(M, U) + "(__cutrace_slots, " +
             std::to_string(GroupIndex[U.MacroOffset]) + ", " + std::to_string(NumGroups) + ", (" +
             text(A.Args[1]).str() + "))";
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
    Site.Kind = A.Kind;
    Site.Name = literal(A.Args[0]);
    Site.Lane = laneId(M, LaneArg ? literal(*LaneArg) : "main");
    Site.Group = Group;
    Site.Loc = locationAt(Lines, Options.SourceName, A.MacroOffset);
    M.Sites.push_back(Site);
    std::string Args = std::to_string(Site.Id) + ", " + payload(A) + ")";
    switch (A.Kind) {
    case AnnotationKind::Range:
      return "cutrace::Range __cutrace_range_" + std::to_string(Site.Id) + "(" + GroupVar + ", " +
             Args;
    case AnnotationKind::RangeStart:
      return GroupVar + ".start(" + Args;
    default:
      return GroupVar + ".instant(" + Args;
    }
  }

  /// A scope object declared straight in a switch body would be jumped over by a later case.
  void checkSwitchPlacement(const AnnotationUse &U, const Annotation &A) {
    bool DeclaresObject = A.Kind == AnnotationKind::Group || A.Kind == AnnotationKind::Range ||
                          A.Kind == AnnotationKind::RangeStart;
    if (DeclaresObject && U.BlockIsSwitchBody && !U.LaterCaseLabels.empty())
      Plan.Problems.push_back(
          {A.MacroOffset, A.spelling().Macro.str() +
                              " directly in a switch body would be jumped over by a later case "
                              "label; put this case's statements in braces"});
  }

  void addSlotsParameter(const KernelDecl &Kernel) {
    for (size_t I = 0; I < Kernel.ParamListEnds.size(); ++I) {
      unsigned RParen = Kernel.ParamListEnds[I];
      std::string Param =
          std::string("cutrace::Slots* __cutrace_slots") + (I == 0 ? " = nullptr" : "");
      if (Kernel.HasParams[I]) {
        edit({RParen, RParen}, ", " + Param);
        continue;
      }
      // `k()` or `k(void)`: the parameter replaces whatever sits between the parentheses.
      size_t LParen = Buffer.substr(0, RParen).rfind('(');
      edit({static_cast<unsigned>(LParen + 1), RParen}, Param);
    }
  }
};

} // namespace

SourceModel mergeModels(llvm::ArrayRef<ParseOutcome> Passes) {
  SourceModel Merged;
  std::map<std::string, int> KernelByName;
  llvm::DenseSet<unsigned> UseOffsets, LaunchOffsets; // what Merged already holds
  for (const ParseOutcome &Pass : Passes) {
    std::vector<int> Remap;
    for (const KernelDecl &K : Pass.Model.Kernels) {
      auto [It, New] = KernelByName.try_emplace(K.QualifiedName, Merged.Kernels.size());
      if (New)
        Merged.Kernels.push_back(K);
      else if (Merged.Kernels[It->second].Body.End == 0)
        Merged.Kernels[It->second].Body = K.Body;
      Remap.push_back(It->second);
    }
    for (AnnotationUse U : Pass.Model.Uses) {
      if (!UseOffsets.insert(U.MacroOffset).second)
        continue;
      if (U.Kernel >= 0)
        U.Kernel = Remap[U.Kernel];
      Merged.Uses.push_back(std::move(U));
    }
    for (LaunchSite L : Pass.Model.Launches) {
      if (!LaunchOffsets.insert(L.Offset).second)
        continue;
      L.Kernel = Remap[L.Kernel];
      Merged.Launches.push_back(std::move(L));
    }
  }
  return Merged;
}

namespace {

void planLaunches(const SourceModel &Model, const std::map<int, std::string> &Symbols,
                  TracedPlan &Plan) {
  for (const LaunchSite &L : Model.Launches) {
    auto It = Symbols.find(L.Kernel);
    if (It == Symbols.end())
      continue;
    const std::string &Name = Model.Kernels[L.Kernel].Name;
    auto Warn = [&](const std::string &Why) {
      Plan.Problems.push_back({L.Offset,
                               "launch of '" + Name + "' cannot be rewritten (" + Why +
                                   "); it records nothing unless it passes slots from "
                                   "cutrace::Recorder (see docs/guide.md)",
                               Severity::Warning});
    };
    if (L.ViaLaunchApi) {
      Warn("launched through the CUDA launch API");
      continue;
    }
    if (L.InMacro) {
      Warn("inside a macro expansion");
      continue;
    }
    if (L.OmitsDefaultedArgs) {
      Warn("it leaves defaulted kernel arguments out");
      continue;
    }
    if (L.ConfigHasSideEffects)
      Plan.Problems.push_back({L.Offset,
                               "launch configuration of '" + Name +
                                   "' has side effects and is evaluated twice in traced builds",
                               Severity::Warning});
    std::string Arg = "cutrace::launch(cutrace_map::" + It->second + ", " + L.Grid + ", " +
                      L.Block + ", " + L.Stream + ")";
    Plan.Edits.push_back({{L.ArgsEnd, L.ArgsEnd}, (L.HasWrittenArgs ? ", " : "") + Arg});
  }
}

void planIncludes(llvm::StringRef Buffer, const ScanResult &Scan, const TracedOptions &Options,
                  TracedPlan &Plan) {
  std::string Includes = "#include <cutrace/traced.h>\n#include \"" + Options.MapInclude + "\"";
  std::string Banner = std::string(TracedBanner) + " from " + escapeForComment(Options.SourceName) +
                       "; edit the source, not this file.\n";
  // After a UTF-8 byte-order mark, which must stay the first bytes of the file.
  unsigned Top = Buffer.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  if (Scan.IncludeDirectives.empty()) {
    Plan.Edits.push_back({{Top, Top}, Banner + Includes + "\n"});
    return;
  }
  Plan.Edits.push_back({{Top, Top}, Banner});
  for (const Span &S : Scan.IncludeDirectives)
    Plan.Edits.push_back({S, Includes});
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
  std::map<int, std::vector<const AnnotationUse *>> UsesByKernel;
  for (const AnnotationUse &U : Model.Uses)
    if (U.Side == FunctionSide::Global && U.Kernel >= 0)
      UsesByKernel[U.Kernel].push_back(&U);
  std::map<int, std::string> Symbols;
  for (auto &[Kernel, Uses] : UsesByKernel) {
    KernelPlanner(Buffer, LexicalAt, Options, Lines, Plan).plan(Model.Kernels[Kernel], Uses);
    Symbols[Kernel] = Plan.Map.Kernels.back().Symbol;
  }
  planLaunches(Model, Symbols, Plan);
  planIncludes(Buffer, Scan, Options, Plan);
  return Plan;
}

} // namespace cutrace
