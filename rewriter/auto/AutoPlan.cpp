#include "auto/AutoPlan.h"

#include "traced/TracedTwins.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/GlobPattern.h"
#include <algorithm>

namespace cutrace {

std::optional<std::string> autoKernelPatternError(llvm::StringRef Pattern) {
  llvm::StringRef Glob = Pattern.starts_with("-") ? Pattern.drop_front() : Pattern;
  if (Glob.empty())
    return "an empty kernel pattern";
  llvm::Expected<llvm::GlobPattern> P = llvm::GlobPattern::create(Glob);
  if (!P)
    return llvm::toString(P.takeError());
  return std::nullopt;
}

bool autoKernelSelected(const std::vector<std::string> &Patterns, llvm::StringRef Qualified,
                        llvm::StringRef Name) {
  bool AnyInclude = false, Included = false;
  for (llvm::StringRef Pattern : Patterns) {
    bool Exclude = Pattern.consume_front("-");
    llvm::Expected<llvm::GlobPattern> P = llvm::GlobPattern::create(Pattern);
    if (!P) {
      llvm::consumeError(P.takeError());
      continue; // refused where the option is read
    }
    bool Matches = P->match(Qualified) || P->match(Name);
    if (Exclude && Matches)
      return false;
    if (!Exclude) {
      AnyInclude = true;
      Included |= Matches;
    }
  }
  return !AnyInclude || Included;
}

namespace {

/// The most ranges Loop<G, First> stores for one execution of a loop of up to 2^32
/// iterations: First, then First / 2 per doubling of the count, and the last iteration.
unsigned storedBound(unsigned First) {
  unsigned Log = 0;
  while ((1u << Log) < First)
    ++Log;
  return First + First / 2 * (32 - Log) + 1;
}

std::string groupType(const TracedOptions &Options, unsigned MaxEvents) {
  return "cutrace::Group<" + std::to_string(MaxEvents) +
         (Options.Clock == "globaltimer" ? ", cutrace::Clock::globaltimer" : "") + ">";
}

} // namespace

unsigned denseIterations(unsigned MaxEvents, unsigned Loops) {
  // Two slots per range; the CTA's life takes one range.
  unsigned Ranges = MaxEvents >= 2 ? (MaxEvents - 2) / 2 : 0;
  unsigned PerLoop = Loops ? Ranges / Loops : Ranges;
  unsigned First = 2;
  while (First < (1u << 30) && storedBound(First * 2) <= PerLoop)
    First *= 2;
  return First;
}

std::vector<int> autoKernels(const SourceModel &Model,
                             const std::map<int, std::vector<const AnnotationUse *>> &Traced,
                             const TracedOptions &Options, TracedPlan &Plan) {
  std::vector<int> Out;
  if (Options.Auto == AutoRows::None || !Options.QuoteIncludesFrom.empty())
    return Out;
  for (size_t I = 0; I < Model.Kernels.size(); ++I) {
    const KernelDecl &K = Model.Kernels[I];
    if (!K.AutoCandidate || Traced.count(static_cast<int>(I)) || K.Body.End <= K.Body.Begin ||
        !autoKernelSelected(Options.AutoKernels, K.QualifiedName, K.Name))
      continue;
    std::string Why;
    for (const KernelDeclSite &D : K.Decls)
      if (D.InMacro)
        Why = "a declaration of it is written by a macro expansion";
    if (K.IsExplicitSpecialization)
      Why = "it is an explicit specialization of a template";
    if (K.HostSpellingUnknownAt)
      Why = "its __host__ spelling cannot be rewritten";
    if (!Why.empty()) {
      Plan.Problems.push_back({K.Body.Begin,
                               "--auto leaves kernel '" + K.Name + "' unrecorded: " + Why +
                                   ", so the traced build cannot write its twin",
                               Severity::Note});
      continue;
    }
    Out.push_back(static_cast<int>(I));
  }
  // In file order (the model lists kernels as the parse met them: launches first).
  std::sort(Out.begin(), Out.end(), [&](int A, int B) {
    return Model.Kernels[A].Body.Begin < Model.Kernels[B].Body.Begin;
  });
  return Out;
}

void planAutoKernel(llvm::StringRef Buffer, const LineIndex &Lines, const KernelDecl &Kernel,
                    const TracedOptions &Options, std::vector<Edit> &TwinEdits, TracedPlan &Plan) {
  const bool Warps = Options.Auto == AutoRows::Warps;
  std::vector<const LoopSite *> Loops;
  for (const LoopSite &L : Kernel.Loops)
    if (L.Body.Begin > Kernel.Body.Begin && L.Body.End <= Kernel.Body.End)
      Loops.push_back(&L);
  // A kernel without loops records its life alone: a row of two slots.
  const unsigned MaxEvents = Loops.empty() ? std::min(2u, Options.MaxEvents) : Options.MaxEvents;
  const std::string Group = groupType(Options, MaxEvents);
  const std::string Var = Warps ? "__cutrace_warp" : "__cutrace_cta";
  auto Where = [&](unsigned Offset) {
    return Options.SourceName + ":" + std::to_string(Lines.line(Offset)) + ":" +
           std::to_string(Lines.column(Offset));
  };

  KernelMapModel M;
  M.Kernel = mapKernelName(Kernel);
  M.Symbol = mapSymbol(Kernel);
  M.MaxEvents = MaxEvents;
  M.Clock = Options.Clock;
  MapGroup Row{Warps ? "warp" : "cta", Warps ? "slice" : "0"};
  if (Warps)
    Row.SliceThreads = 32;
  M.Groups.push_back(Row);
  M.Lanes = {"main"};
  MapSite Life;
  Life.Id = 0;
  Life.Kind = AnnotationKind::Range;
  Life.Name = Kernel.Name;
  Life.Loc = Where(Kernel.Body.Begin);
  Life.Offset = Kernel.Body.Begin;
  M.Sites.push_back(Life);
  const unsigned First = denseIterations(Options.MaxEvents, Loops.size());
  if (!Loops.empty() && storedBound(First) * Loops.size() + 1 > (Options.MaxEvents - 2) / 2 + 1)
    Plan.Problems.push_back(
        {Kernel.Body.Begin,
         "kernel '" + Kernel.Name + "' has " + std::to_string(Loops.size()) +
             " outermost loops: with --max-events " + std::to_string(Options.MaxEvents) +
             " a row may fill before a long loop ends (iterations past it are counted as "
             "dropped); give --max-events " +
             std::to_string(2 * (storedBound(2) * Loops.size() + 1)) + " or more",
         Severity::Warning});

  // At the entry: the row, the CTA's (or warp's) life, and each loop's sampler.
  std::string Entry;
  if (Warps)
    Entry +=
        " const uint32_t __cutrace_rows = cutrace::slices_in(cutrace::cta_threads(), 32, 0); " +
        Group + " " + Var + "(__cutrace_slots, 0, __cutrace_rows, cutrace::Slices{32, 0});";
  else
    Entry += " " + Group + " " + Var + "(__cutrace_slots, 0, 1, 0);";
  Entry +=
      " cutrace::Life<" + Group + ", " + (Warps ? "32" : "0") + "> __cutrace_life(" + Var + ", 0);";
  for (size_t I = 0; I < Loops.size(); ++I) {
    const LoopSite &L = *Loops[I];
    std::string Id = std::to_string(I + 1);
    MapSite S;
    S.Id = I + 1;
    S.Kind = AnnotationKind::Range;
    S.Name = L.Form + " (line " + std::to_string(Lines.line(L.Keyword)) + ")";
    S.Loc = Where(L.Keyword);
    S.Offset = L.Keyword;
    M.Sites.push_back(S);
    // A row per warp: every warp writes, so no warp branches over the bookkeeping.
    Entry += " cutrace::Loop<" + Group + ", " + std::to_string(First) + (Warps ? ", 32" : "") +
             "> __cutrace_loop_" + Id + "(" + Var + ", " + Id + ");";
    // The loops before it store their skipped last iterations when it begins.
    std::string Earlier;
    for (size_t J = 0; J < I; ++J)
      Earlier += ", __cutrace_loop_" + std::to_string(J + 1);
    std::string Iteration =
        "cutrace::Iteration __cutrace_iteration_" + Id + "(__cutrace_loop_" + Id + Earlier + ");";
    if (L.BodyIsCompound) {
      TwinEdits.push_back({{L.Body.Begin + 1, L.Body.Begin + 1}, " " + Iteration});
    } else {
      TwinEdits.push_back({{L.Body.Begin, L.Body.Begin}, "{ " + Iteration + " "});
      TwinEdits.push_back({{L.Body.End, L.Body.End}, " }"});
    }
  }
  unsigned Open = Kernel.Body.Begin + (Buffer.substr(Kernel.Body.Begin).starts_with("<%") ? 2 : 1);
  TwinEdits.push_back({{Open, Open}, Entry});
  for (Edit &E : slotsParameterEdits(Buffer, Kernel))
    TwinEdits.push_back(std::move(E));
  Plan.KernelSpans.push_back({Kernel.QualifiedName, Kernel.Body});
  Plan.Map.Kernels.push_back(std::move(M));
}

} // namespace cutrace
