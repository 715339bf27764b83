// Plans the twins of one file's kernels and of the __device__ functions they reach, for
// rewriter/traced/TracedRewrite.cpp; its parts are KernelPlanner.cpp (the twins' markers),
// TracedGroups.cpp and TracedHelperCalls.cpp. Only those include it.
#ifndef CUTRACE_REWRITER_KERNELPLANNER_H
#define CUTRACE_REWRITER_KERNELPLANNER_H

#include "traced/TracedCallGraph.h"
#include "traced/TracedRewrite.h"

#include "lex/LineIndex.h"
#include "llvm/ADT/DenseMap.h"
#include <map>
#include <set>
#include <string>
#include <vector>

namespace cutrace::planner {

/// `file:line:col` of a byte offset, for map locations.
std::string locationAt(const LineIndex &Lines, const std::string &File, unsigned Offset);

/// Text that cannot end the block comment it is placed in.
std::string commentSafe(llvm::StringRef Text);

/// The lexical annotation at each macro offset (the first one, if the scan found two).
using AnnotationsByOffset = llvm::DenseMap<unsigned, const Annotation *>;

class KernelPlanner {
public:
  KernelPlanner(llvm::StringRef Buffer, llvm::ArrayRef<Annotation> Annotations,
                const AnnotationsByOffset &LexicalAt, const TracedOptions &Options,
                const LineIndex &Lines, TracedPlan &Plan, std::vector<Edit> &TwinEdits,
                const std::vector<Edit> &CopyEdits, UnitHelpers &Unit, int FileId)
      : Buffer(Buffer), Annotations(Annotations), LexicalAt(LexicalAt), Options(Options),
        Lines(Lines), Plan(Plan), TwinEdits(TwinEdits), CopyEdits(CopyEdits), Unit(Unit),
        FileId(FileId) {}

  void plan(const KernelDecl &Kernel, std::vector<const AnnotationUse *> Uses,
            const HelperGraph &Helpers, int KernelIndex);

  /// The twin edits of a __device__ function that reaches annotations: its markers record into
  /// the group its caller passes (`__cutrace_group`), or, after a TRACE_GROUP / TRACE_GROUPS of
  /// its own and inside that declaration's block, into the kernel's group of that name, found
  /// through the group passed (`.group<G::sites::<helper>_group_<k>>()`); site ids are those the
  /// group's type names, and its calls of other such functions pass the group in scope. Records
  /// its sites (numbered from 0) and its group names in Helpers.
  void planHelper(const KernelDecl &Helper, std::vector<const AnnotationUse *> Uses,
                  const HelperGraph &Helpers, int HelperIndex);

  /// The edits of the twin's declarations written here of a helper another file defines.
  void declareHelper(const KernelDecl &Helper) { addGroupParameter(Helper); }

private:
  /// TRACE_SAMPLE: its statement twice in the twin (rewriter/traced/TracedSamples.h).
  void sample(const Annotation &A, const AnnotationUse &U,
              const std::vector<const HelperCall *> &Calls);

  /// `h(x)` -> `h_cutrace_traced(group, x)`: the twin takes the group first, so default
  /// arguments of the helper stay last. A call site that instantiations send to several
  /// functions is edited once.
  void callTwin(const HelperCall &C, const HelperGraph &Helpers, const std::string &GroupVar);

  /// The helper's sites in this kernel's map, after the kernel's own, and where they start.
  void addHelperSites(KernelMapModel &M, const std::string &Key,
                      const std::vector<unsigned> &Handed);

  /// The kernel's group for each group name helper H declares, and whether that group picks its
  /// writer where declared, as constants of the sites struct its twin reads.
  void addHelperGroups(KernelMapModel &M, const std::string &Key);

  /// Adds Groups to Into, each once, keeping the order they were first handed in.
  static bool receive(std::vector<unsigned> &Into, const std::vector<unsigned> &Groups);

  /// What each function the kernel reaches is handed, through every call on the way: a callee
  /// records its caller's group into whichever of these the calling thread writes.
  void passOn(std::map<std::string, std::vector<unsigned>> &Received,
              const std::vector<std::string> &Reached) const;

  /// The group markers and calls use where the groups Chain are in effect (latest first): the
  /// group itself, or the WriterOf of them that the kernel's entry declares.
  std::string writerOf(const KernelMapModel &M, const std::vector<unsigned> &Chain) const;

  unsigned groupNamed(const std::string &Name) const;

  /// The twin's name, a template parameter for the group's type, and the group as its first
  /// parameter, in the copy of every declaration of the helper written here; a
  /// __host__ __device__ function's twin is __device__ only (only traced device code calls it).
  void addGroupParameter(const KernelDecl &Helper);

  llvm::StringRef Buffer;
  llvm::ArrayRef<Annotation> Annotations; // the file's, in file order
  const AnnotationsByOffset &LexicalAt;
  const TracedOptions &Options;
  const LineIndex &Lines;
  TracedPlan &Plan;
  std::vector<Edit> &TwinEdits; // edits of the twin's copy, by offsets in Buffer
  const std::vector<Edit> &CopyEdits; // what every copy of code takes (`__COUNTER__` values)
  UnitHelpers &Unit;            // the translation unit's traced functions
  int FileId;                   // this file's among the unit's
  unsigned KernelAt = 0;        // the planned kernel's body: where another file's group is blamed
  std::string groupType;
  bool OnCallPath = false;   // the kernel's callees declare groups: its groups form a Roster
  std::string SiteIdPrefix;  // a helper's twin: its sites are `G::sites::<key> + k`
  std::set<unsigned> Routed; // ')' of the calls sent to twins
  std::map<unsigned, size_t> GroupIndex;              // a group declaration's offset -> its group
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
  std::string literal(Span S);

  void edit(Span S, std::string Text) { TwinEdits.push_back({S, std::move(Text)}); }

  const Annotation *lexical(unsigned MacroOffset) const { return LexicalAt.lookup(MacroOffset); }

  std::string groupVar(const KernelMapModel &M, size_t Index) const;

  std::string where(unsigned Offset) const { return locationAt(Lines, Options.SourceName, Offset); }

  /// A group declaration written in this file, as data every kernel reaching it reads.
  CalleeGroup groupDeclared(const AnnotationUse &U, const Annotation &A);

  /// A problem of a group declaration: where it is written when that is this file, else at the
  /// kernel, naming the declaration's place.
  void groupProblem(const CalleeGroup &G, unsigned Offset, std::string Message);

  /// Gives a group declaration its group: the one its name already has, or a new one. The
  /// declarations of one name must agree on what the row is.
  void declareGroup(KernelMapModel &M, const CalleeGroup &U);

  /// Every group of the kernel is constructed at its entry, on the brace's own line (so the
  /// twin's lines stay those of the source): a group declared in a loop or in several branches
  /// keeps one row and one cursor for the whole kernel.
  void emitGroupObjects(const KernelMapModel &M, const KernelDecl &Kernel,
                        const std::set<std::vector<unsigned>> &Together);

  unsigned laneId(KernelMapModel &M, const std::string &Lane);

  std::string payload(const Annotation &A) const;

  std::string expand(KernelMapModel &M, const Annotation &A, const std::string &GroupVar,
                     unsigned Group, const AnnotationUse &U);

  /// A scope object declared straight in a switch body would be jumped over by a later case.
  void checkSwitchPlacement(const AnnotationUse &U, const Annotation &A);

  void addSlotsParameter(const KernelDecl &Kernel);
};

} // namespace cutrace::planner

#endif
