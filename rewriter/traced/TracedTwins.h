// Twins of a traced build (docs/design.md, "Traced contract"): the copy of each annotated kernel
// and of each __device__ function it reaches, where the copy goes, what it and its decode map are
// called, and the functions that cannot have one.
#ifndef CUTRACE_REWRITER_TRACEDTWINS_H
#define CUTRACE_REWRITER_TRACEDTWINS_H

#include "lex/Edit.h"
#include "lex/LineIndex.h"
#include "traced/TracedRewrite.h"
#include <map>
#include <set>
#include <string>
#include <vector>

namespace cutrace {

/// Name as a C++ identifier: every other character becomes '_'.
std::string identifierFrom(llvm::StringRef Name);

/// 8 hex digits of a stable hash (FNV-1a): tells overloads' map symbols apart.
std::string shortHash(llvm::StringRef Text);

/// Its KernelMap's identifier in namespace cutrace_map, and the name the map gives it: an
/// overloaded kernel's carry its parameter types, so that each overload has its own.
std::string mapSymbol(const KernelDecl &K);
std::string mapKernelName(const KernelDecl &K);
/// A non-template kernel registers its twin at run time (launches through pointers find it).
bool isRegistered(const KernelDecl &K);

/// The twin's name and trailing slots parameter, as edits of the copy of every declaration of
/// the kernel written here (the first one carries the default, as C++ wants it once; a kernel
/// with a parameter pack takes the slots first).
std::vector<Edit> slotsParameterEdits(llvm::StringRef Buffer, const KernelDecl &Kernel);

/// `"file"` for a #line directive.
std::string lineFile(const TracedOptions &Options);

/// Strip's deletions; one that removes whole lines leaves a #line in their place, so the lines
/// after it keep their numbers in the traced file.
std::vector<Edit> lineKeepingDeletions(llvm::StringRef Buffer, const LineIndex &Lines,
                                       const TracedOptions &Options,
                                       const std::vector<Span> &Deletions);

/// Spaces up to Offset's column: text placed after a #line keeps the columns of the source.
std::string padTo(const LineIndex &Lines, unsigned Offset);

/// The edits every copy of the file's code takes (docs/design.md, "Traced contract"): each
/// `__COUNTER__` the file expands outside the annotations (Annotated: their statements) is
/// written as what the original got, so a copy moves the count for no line after it. Where the
/// host and device compilations got different values, the copy holds both under
/// `#if defined(__CUDA_ARCH__)`. A use no copy can write (a `_Pragma` in the expansion) is left
/// out and its span added to Unwritable; one in an annotation, which the plain build never
/// expands and the twin's marker does, to InAnnotations.
std::vector<Edit> counterEdits(const LineIndex &Lines, const TracedOptions &Options,
                               const std::vector<CounterUse> &Counters,
                               llvm::ArrayRef<Span> Annotated, std::vector<Span> &Unwritable,
                               std::vector<Span> &InAnnotations);

/// Buffer[R] with the edits that lie inside R applied.
std::string applyWithin(llvm::StringRef Buffer, Span R, const std::vector<Edit> &Edits);

/// Errors for an annotated kernel or a traced helper (Helper true) whose twin cannot be written:
/// a declaration spelled by a macro, an explicit specialization of a template. At: where to
/// report when the declaration has no location of its own (its first annotation).
void checkTwinnable(const KernelDecl &F, bool Helper, unsigned At, TracedPlan &Plan);

/// The twin of every annotated kernel: a copy of each of its declarations written here, with the
/// traced edits applied, after the original, which keeps its signature and loses its annotations.
void planTwins(llvm::StringRef Buffer, const LineIndex &Lines, const SourceModel &Model,
               const std::map<int, TracedTwin> &Twins, const std::vector<Edit> &TwinEdits,
               const TracedOptions &Options, TracedPlan &Plan);

/// The twin of every helper a traced kernel reaches, after each of its declarations; a helper
/// that holds annotations and that no traced kernel of the file calls records nothing.
void planHelperTwins(llvm::StringRef Buffer, const LineIndex &Lines, const SourceModel &Model,
                     const std::set<int> &Reached,
                     std::map<int, std::vector<const AnnotationUse *>> &UsesByHelper,
                     const std::vector<Edit> &TwinEdits, const TracedOptions &Options,
                     TracedPlan &Plan);

} // namespace cutrace

#endif
