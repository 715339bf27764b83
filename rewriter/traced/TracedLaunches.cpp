#include "traced/TracedLaunches.h"
#include "traced/TracedTwins.h"
#include "traced/TracedValues.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include <algorithm>
#include <optional>

namespace cutrace {

void warnAt(TracedPlan &Plan, unsigned Offset, std::string Message) {
  Plan.Problems.push_back({Offset, std::move(Message), Severity::Warning});
}

namespace {

std::string text(llvm::StringRef Buffer, Span S) { return Buffer.substr(S.Begin, S.size()).str(); }

/// `, d1, d2` (or `d1, d2` when nothing was written): the defaults a launch left out, spelled,
/// so that an argument can follow them.
std::string spelledDefaults(const LaunchSite &L) {
  std::string Out;
  for (const std::string &D : L.DefaultArgs)
    Out += (Out.empty() && !L.HasWrittenArgs ? "" : ", ") + D;
  return Out;
}

std::string configArgs(const LaunchSite &L) {
  return L.Grid + ", " + L.Block + ", " + L.Shmem + ", " + L.Stream;
}

const char *runtimeLaunchFunction(llvm::StringRef Api) {
  if (Api == "cudaLaunchKernel")
    return "cutrace::launchKernel";
  if (Api == "cudaLaunchCooperativeKernel")
    return "cutrace::launchCooperativeKernel";
  if (Api == "cudaLaunchKernelEx")
    return "cutrace::launchKernelEx";
  return "cutrace::launchKernelExC";
}

class LaunchPlanner {
public:
  LaunchPlanner(llvm::StringRef Buffer, const SourceModel &Model,
                const std::map<int, TracedTwin> &Twins, const ValueEdits &Values, TracedPlan &Plan)
      : Buffer(Buffer), Model(Model), Twins(Twins), Values(Values),
        ValueEditTaken(Values.Edits.size(), false), Plan(Plan) {
    // One edit of a macro body serves every expansion: each must take `cutrace::via(k, ...)`,
    // which needs one function (no overload set, no template left to deduce) and every argument.
    for (const LaunchSite &L : Model.Launches)
      if (L.InMacro && L.Body.ConfigEnd &&
          (L.OverloadedName || L.DeducedTemplate || L.OmitsDefaultedArgs))
        UneditableBodies.insert(L.Body.Callee.Begin);
  }

  void plan(const LaunchSite &L) {
    const TracedTwin *Twin = twinOf(L.Kernel);
    if (L.ViaLaunchApi)
      return planApiCall(L, Twin);
    if (L.InMacro)
      return planMacroLaunch(L, Twin);
    if (!L.ConfigEnd || L.Callee.End <= L.Callee.Begin)
      return;
    // An explicit specialization of an annotated template has no twin: it runs as written.
    if (Twin && L.ExplicitSpecialization)
      return;
    if (Twin)
      return planTwinLaunch(L, *Twin);
    // Not annotated here: the runtime looks the kernel up in its twin registry at launch time.
    const KernelDecl *K = L.Kernel >= 0 ? &Model.Kernels[L.Kernel] : nullptr;
    if (K && (K->DefinitionVisible || L.DeducedTemplate))
      return;
    // An overload defined elsewhere: the cast names the one the launch resolves to, whose
    // registered twin the registry finds.
    std::string Callee = callee(L.Callee);
    if (L.OverloadedName && (!K || K->IsTemplate || K->HasParameterPack))
      return;
    if (L.OverloadedName)
      Callee = "static_cast<void (*)(" + K->ParamTypesQualified + ")>(" + Callee + ")";
    edit({L.Callee.Begin, L.ConfigEnd}, "cutrace::via(" + Callee + ", " + configArgs(L) + ")");
    if (L.OmitsDefaultedArgs)
      edit({L.ArgsEnd, L.ArgsEnd}, spelledDefaults(L));
    Plan.EditedLaunches.push_back(L.Offset);
  }

private:
  llvm::StringRef Buffer;
  const SourceModel &Model;
  const std::map<int, TracedTwin> &Twins;
  const ValueEdits &Values;
  std::vector<bool> ValueEditTaken; // copied into a launch's edit, by index in Values.Edits
  TracedPlan &Plan;
  llvm::DenseSet<unsigned> MacroEdits;       // macro bodies already edited, by offset
  llvm::DenseSet<unsigned> UneditableBodies; // ... and those no edit can serve, by offset

  void edit(Span S, std::string Text) { Plan.Edits.push_back({S, std::move(Text)}); }

  const TracedTwin *twinOf(int Kernel) const {
    auto It = Twins.find(Kernel);
    return It == Twins.end() ? nullptr : &It->second;
  }

  void cannotRecord(const LaunchSite &L, const std::string &Why) {
    warnAt(Plan, L.Offset,
           "launch of '" + Model.Kernels[L.Kernel].Name + "' is not recorded (" + Why +
               "); it runs the kernel as the plain build does. To record it, launch " +
               twinName(Model.Kernels[L.Kernel].Name) +
               " with slots from cutrace::Recorder (docs/guide.md)");
  }

  /// A launch in a macro body: the body's one launch serves every expansion, whichever kernel
  /// it is given, so it goes through the registry.
  void planMacroLaunch(const LaunchSite &L, const TracedTwin *Twin) {
    const auto &B = L.Body;
    if (B.ConfigEnd == 0 || UneditableBodies.contains(B.Callee.Begin)) {
      if (Twin)
        cannotRecord(L, "it is written inside a macro that the rewrite cannot edit");
      return;
    }
    if (Twin && !Twin->Registered)
      cannotRecord(L, "a template kernel launched inside a macro has no run-time twin "
                      "registration");
    if (!MacroEdits.insert(B.Callee.Begin).second)
      return;
    edit({B.Callee.Begin, B.ConfigEnd}, "cutrace::via(" + callee(B.Callee) + ", " + B.Grid + ", " +
                                            B.Block + ", " + B.Shmem + ", " + B.Stream + ")");
    Plan.EditedLaunches.push_back(L.Offset);
  }

  void planTwinLaunch(const LaunchSite &L, const TracedTwin &Twin) {
    const KernelDecl &K = Model.Kernels[L.Kernel];
    std::string Map = "cutrace_map::" + Twin.Symbol;
    if (K.HasParameterPack)
      return planPackLaunch(L, K, Map);
    if (L.DeducedTemplate || L.OverloadedName || !L.CalleeName) {
      // No function to take the address of: the twin itself runs, recording when given slots.
      if (L.ConfigHasSideEffects)
        warnAt(Plan, L.Offset,
               "launch configuration of '" + K.Name +
                   "' has side effects and is evaluated twice in traced builds");
      edit({L.CalleeName, L.CalleeName + static_cast<unsigned>(K.Name.size())}, twinName(K.Name));
      edit({L.ArgsEnd, L.ArgsEnd},
           spelledDefaults(L) + (L.HasWrittenArgs || !L.DefaultArgs.empty() ? ", " : "") +
               "cutrace::launch(" + Map + ", " + L.Grid + ", " + L.Block + ", " + L.Stream + ")");
      Plan.EditedLaunches.push_back(L.Offset);
      return;
    }
    std::string Callee = callee(L.Callee);
    unsigned NameAt = L.CalleeName - L.Callee.Begin;
    std::string TwinCallee =
        Callee.substr(0, NameAt) + twinName(K.Name) + Callee.substr(NameAt + K.Name.size());
    edit({L.Callee.Begin, L.ConfigEnd}, "cutrace::launchPair(" + Map + ", " + Callee + ", " +
                                            TwinCallee + ", " + configArgs(L) + ")");
    if (L.OmitsDefaultedArgs)
      edit({L.ArgsEnd, L.ArgsEnd}, spelledDefaults(L));
    Plan.EditedLaunches.push_back(L.Offset);
  }

  /// A kernel with a parameter pack takes its slots first (a parameter after a pack cannot be
  /// deduced): the twin runs, recording when given slots.
  void planPackLaunch(const LaunchSite &L, const KernelDecl &K, const std::string &Map) {
    std::optional<unsigned> LParen = argumentsOpen(L);
    if (!L.CalleeName || !LParen) {
      cannotRecord(L, "the rewrite could not find where its arguments begin");
      return;
    }
    if (L.ConfigHasSideEffects)
      warnAt(Plan, L.Offset,
             "launch configuration of '" + K.Name +
                 "' has side effects and is evaluated twice in traced builds");
    edit({L.CalleeName, L.CalleeName + static_cast<unsigned>(K.Name.size())}, twinName(K.Name));
    edit({*LParen + 1, *LParen + 1}, "cutrace::launch(" + Map + ", " + L.Grid + ", " + L.Block +
                                         ", " + L.Stream + ")" + (L.HasWrittenArgs ? ", " : ""));
    Plan.EditedLaunches.push_back(L.Offset);
  }

  /// The '(' after a launch's `>>>`, past blanks and comments.
  std::optional<unsigned> argumentsOpen(const LaunchSite &L) const {
    size_t P = L.ConfigEnd;
    while (P < L.ArgsEnd) {
      llvm::StringRef Rest = Buffer.substr(P);
      if (Rest.starts_with("("))
        return static_cast<unsigned>(P);
      if (Rest.starts_with("//"))
        P = Buffer.find('\n', P);
      else if (Rest.starts_with("/*"))
        P = std::min(Buffer.find("*/", P), Buffer.size()) + 2;
      else if (llvm::isSpace(Rest.front()) || Rest.starts_with("\\\n"))
        ++P;
      else
        return std::nullopt;
    }
    return std::nullopt;
  }

  /// The value planner routed the call's kernel argument.
  bool routesItsKernel(const LaunchSite &L) const {
    return Values.RoutedLaunchApiCalls.contains(L.Offset);
  }

  /// A callee as written, with the value edits inside it applied (they go with it).
  std::string callee(Span S) {
    for (size_t I = 0; I < Values.Edits.size(); ++I)
      if (Values.Edits[I].Range.Begin >= S.Begin && Values.Edits[I].Range.End <= S.End)
        ValueEditTaken[I] = true;
    return applyWithin(Buffer, S, Values.Edits);
  }

public:
  /// The value edits no launch copied.
  void planUntakenValueEdits() {
    for (size_t I = 0; I < Values.Edits.size(); ++I)
      if (!ValueEditTaken[I])
        Plan.Edits.push_back(Values.Edits[I]);
  }

private:
  void planApiCall(const LaunchSite &L, const TracedTwin *Twin) {
    if (L.InMacro || L.ApiName.End <= L.ApiName.Begin) {
      if (Twin)
        cannotRecord(L, "the " + L.ApiFunction + " call is written inside a macro expansion");
      return;
    }
    if (Twin && !Twin->Registered && !routesItsKernel(L))
      cannotRecord(L, "a template kernel launched through " + L.ApiFunction +
                          " has no run-time twin registration where its instance is not named "
                          "with its template arguments");
    edit(L.ApiName, runtimeLaunchFunction(L.ApiFunction));
    Plan.EditedLaunches.push_back(L.Offset);
  }
};

} // namespace

void planLaunches(llvm::StringRef Buffer, const LineIndex &Lines, const SourceModel &Model,
                  const std::map<int, TracedTwin> &Twins, const TracedOptions &Options,
                  TracedPlan &Plan) {
  ValueEdits Values = planValueUses(Buffer, Lines, Model, Twins, Options, Plan);
  LaunchPlanner Launches(Buffer, Model, Twins, Values, Plan);
  for (const LaunchSite &L : Model.Launches)
    Launches.plan(L);
  Launches.planUntakenValueEdits();
}

} // namespace cutrace
