// `trace-rewrite --traced --auto` (docs/auto.md): the twins of kernels written without
// annotations, planned as if the tool had written their annotations: a row per CTA (or per
// warp) holding the CTA's life as a range, and a range per sampled iteration of each outermost
// loop of the body, with the iteration's index as payload.
#ifndef CUTRACE_REWRITER_AUTOPLAN_H
#define CUTRACE_REWRITER_AUTOPLAN_H

#include "lex/Edit.h"
#include "lex/LineIndex.h"
#include "traced/TracedRewrite.h"
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cutrace {

/// Why a `--auto-kernels` pattern (GLOB or -GLOB) cannot be used, if it cannot.
std::optional<std::string> autoKernelPatternError(llvm::StringRef Pattern);

/// True when the patterns select a kernel of that name (qualified or as spelled): it matches a
/// GLOB (or no GLOB is given) and no -GLOB; a later pattern does not override an earlier one.
bool autoKernelSelected(const std::vector<std::string> &Patterns, llvm::StringRef Qualified,
                        llvm::StringRef Name);

/// How many iterations of each outermost loop a row stores densely before sampling (a power of
/// two from 2): the largest whose bound on stored ranges fits the row beside the others.
unsigned denseIterations(unsigned MaxEvents, unsigned Loops);

/// The kernels of the file that `--auto` traces: defined here, selected by the patterns, with
/// no annotations of their own and reaching none (those are traced as annotated, in Traced).
/// Kernels that cannot have a twin are left out with a note. Empty unless Options.Auto is set,
/// and for header copies.
std::vector<int> autoKernels(const SourceModel &Model,
                             const std::map<int, std::vector<const AnnotationUse *>> &Traced,
                             const TracedOptions &Options, TracedPlan &Plan);

/// The twin edits (by offsets in Buffer) and the decode map of one automatic kernel.
void planAutoKernel(llvm::StringRef Buffer, const LineIndex &Lines, const KernelDecl &Kernel,
                    const TracedOptions &Options, std::vector<Edit> &TwinEdits, TracedPlan &Plan);

} // namespace cutrace

#endif
