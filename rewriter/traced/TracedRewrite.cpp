#include "traced/TracedRewrite.h"

#include "model/AutoLoops.h"
#include <cassert>

#include "lex/StringLiteral.h"
#include "strip/Strip.h"
#include "traced/KernelPlanner.h"
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
using planner::AnnotationsByOffset;
using planner::KernelPlanner;

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
    Plan.Edits.push_back({S, Includes + "\n" + Lines.lineDirective(Lines.line(S.Begin) + 1, File)});
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
  std::vector<Edit> CopyEdits;          // what every copy of the file's code takes
  std::vector<Span> UnwritableCounters; // `__COUNTER__` uses a copy expands again
  std::vector<Span> AnnotationCounters; // `__COUNTER__` uses the twin's markers expand
  llvm::DenseSet<unsigned> Expanded;
  std::map<int, TracedTwin> Twins;
  std::vector<int> AutoKernels; // --auto: kernels given automatic ranges

  KernelPlanner planner(UnitHelpers &Unit) {
    return KernelPlanner(Buffer, Scan.Annotations, LexicalAt, Options, Lines, Plan, TwinEdits,
                         CopyEdits, Unit, Id);
  }
};

void prepare(TracedFile &F) {
  F.Plan.Map.Source = F.Options.SourceName;
  for (const Annotation &A : F.Scan.Annotations)
    F.LexicalAt.try_emplace(A.MacroOffset, &A);
  F.UsesByHelper = usesByHelper(F.Model);
  F.Keys = helperKeys(F.Model, F.Lines);
  std::vector<Span> Annotated;
  for (const Annotation &A : F.Scan.Annotations)
    Annotated.push_back(A.Statement);
  F.CopyEdits = counterEdits(F.Lines, F.Options, F.Model.Counters, Annotated,
                             F.UnwritableCounters, F.AnnotationCounters);
}

/// The copies take the counter values, except where another edit of the copy covers the same
/// text (a call routed inside a macro's arguments): that use is expanded again.
void addCopyEdits(TracedFile &F) {
  for (const Edit &E : F.CopyEdits) {
    bool Overlaps = std::any_of(F.TwinEdits.begin(), F.TwinEdits.end(), [&](const Edit &T) {
      return E.Range.Begin < T.Range.End && T.Range.Begin < E.Range.End;
    });
    if (Overlaps)
      F.UnwritableCounters.push_back(E.Range);
    else
      F.TwinEdits.push_back(E);
  }
}

/// A warning for each `__COUNTER__` use a copy expands again: the code after it sees other values.
void warnCounters(TracedFile &F, const std::vector<Span> &Copied) {
  auto InCopy = [&](Span U) {
    return std::any_of(Copied.begin(), Copied.end(),
                       [&](Span C) { return U.Begin >= C.Begin && U.End <= C.End; });
  };
  const char *After = ", so code after the twin sees __COUNTER__ values other than the plain "
                      "build's";
  for (Span U : F.UnwritableCounters)
    if (InCopy(U))
      warnAt(F.Plan, U.Begin,
             std::string("this expands __COUNTER__, and the traced build cannot write the value "
                         "it gets here into the twin's copy (a _Pragma in the expansion, or a "
                         "call the twin routes inside it): the copy expands it again") +
                 After);
  for (Span U : F.AnnotationCounters)
    if (InCopy(U))
      warnAt(F.Plan, U.Begin,
             std::string("this annotation's arguments expand __COUNTER__: the plain build never "
                         "expands them and the twin's marker does") +
                 After + "; compute the value outside the annotation");
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
  for (Edit &E :
       lineKeepingDeletions(F.Buffer, F.Lines, F.Options, planStripDeletions(F.Buffer, Statements)))
    F.Plan.Edits.push_back(std::move(E));

  // Functions whose twins could not be written, and jumps the twins' scope objects forbid.
  std::vector<const AnnotationUse *> Expandable;
  for (auto &[Kernel, Uses] : F.UsesByKernel) {
    checkTwinnable(F.Model.Kernels[Kernel], false,
                   Uses.empty() ? F.Model.Kernels[Kernel].Body.Begin : Uses.front()->MacroOffset,
                   F.Plan);
    Expandable.insert(Expandable.end(), Uses.begin(), Uses.end());
  }
  auto Local = [&](size_t H) {
    return F.Helpers.Traced[H] && F.Model.Helpers[H].DefinedIn.empty();
  };
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
  if (F.Options.Auto != AutoRows::None) {
    assert(F.Options.AutoPlan.Kernels && "--auto needs TracedOptions::AutoPlan");
    F.AutoKernels = F.Options.AutoPlan.Kernels(F.Model, F.UsesByKernel, F.Options, F.Plan);
  }
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
    F.Options.AutoPlan.PlanKernel(F.Buffer, F.Lines, F.Model.Kernels[Kernel], F.Options,
                                  F.TwinEdits, F.Plan);
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
  addCopyEdits(F);
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
  std::vector<Span> Copied;
  for (const auto &[Index, Info] : Declared)
    for (const KernelDeclSite &D : F.Model.Kernels[Index].Decls)
      Copied.push_back(D.Range);
  for (int H : ReachedHere)
    for (const KernelDeclSite &D : F.Model.Helpers[H].Decls)
      Copied.push_back(D.Range);
  warnCounters(F, Copied);
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
