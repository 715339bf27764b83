// Groups in a twin: the group a declaration gets, the group parameter of a helper's twin, and
// the group objects a kernel constructs at its entry (rewriter/traced/KernelPlanner.h).
#include "traced/KernelPlanner.h"

#include "traced/TracedCallGraph.h"
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

std::string KernelPlanner::writerOf(const KernelMapModel &M,
                                    const std::vector<unsigned> &Chain) const {
  if (Chain.size() == 1)
    return groupVar(M, Chain.front());
  std::string Name = "__cutrace_writer_of";
  for (unsigned G : Chain)
    Name += "_" + std::to_string(G);
  return Name;
}

unsigned KernelPlanner::groupNamed(const std::string &Name) const {
  auto It = IndexOfName.find(Name);
  return It == IndexOfName.end() ? 0 : It->second;
}

void KernelPlanner::addGroupParameter(const KernelDecl &Helper) {
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

std::string KernelPlanner::groupVar(const KernelMapModel &M, size_t Index) const {
  if (Index == 0 && M.Groups[0].Name == "block" && !M.Groups[0].SliceThreads)
    return "__cutrace_block";
  return "__cutrace_" + identifierFrom(M.Groups[Index].Name) + "_" + std::to_string(Index);
}

CalleeGroup KernelPlanner::groupDeclared(const AnnotationUse &U, const Annotation &A) {
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

void KernelPlanner::groupProblem(const CalleeGroup &G, unsigned Offset, std::string Message) {
  if (G.File == FileId)
    Plan.Problems.push_back({Offset, std::move(Message)});
  else
    Plan.Problems.push_back({KernelAt, G.Loc + ": " + Message});
}

void KernelPlanner::declareGroup(KernelMapModel &M, const CalleeGroup &U) {
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
                   "group '" + Name + "' is declared with size " + std::to_string(G.SliceThreads) +
                       " and first " + std::to_string(G.FirstThread) + " at " + First +
                       "; every declaration of a name must give the same size and first");
    return;
  }
  if (D.LeadAtEntry && U.LeadValue && *U.LeadValue != D.Lead)
    groupProblem(U, U.LeadAt,
                 "group '" + Name + "' is declared with lead " + std::to_string(D.Lead) + " at " +
                     First +
                     "; every declaration of a name must name the same lead thread (a name "
                     "identifies one row, written by one thread)");
  else if (!U.LeadValue)
    D.LeadAtEntry = false;
}

void KernelPlanner::emitGroupObjects(const KernelMapModel &M, const KernelDecl &Kernel,
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
    Writers.push_back(G.SliceThreads ? "cutrace::Slices{" + std::to_string(G.SliceThreads) + ", " +
                                           std::to_string(G.FirstThread) + "}"
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
        Text += " cutrace::WriterOf " + writerOf(M, Tail) + "(" + groupVar(M, Tail.front()) + ", " +
                writerOf(M, {Tail.begin() + 1, Tail.end()}) + ");";
    }
  // After the opening brace, `{` or the digraph `<%`.
  unsigned Open = Kernel.Body.Begin + (Buffer.substr(Kernel.Body.Begin).starts_with("<%") ? 2 : 1);
  edit({Open, Open}, Text);
}

} // namespace cutrace::planner
