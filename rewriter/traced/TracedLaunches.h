// Launch-site routing of a traced build (docs/launches.md): every launch written in the file that
// may run an annotated kernel reaches its twin, directly or through the runtime's twin registry;
// value uses of kernels are planned first (TracedValues.h).
#ifndef CUTRACE_REWRITER_TRACEDLAUNCHES_H
#define CUTRACE_REWRITER_TRACEDLAUNCHES_H

#include "lex/LineIndex.h"
#include "traced/TracedRewrite.h"
#include <map>

namespace cutrace {

void warnAt(TracedPlan &Plan, unsigned Offset, std::string Message);

/// Twins: the kernels of Model that have a twin (here or in a traced header), by index.
void planLaunches(llvm::StringRef Buffer, const LineIndex &Lines, const SourceModel &Model,
                  const std::map<int, TracedTwin> &Twins, const TracedOptions &Options,
                  TracedPlan &Plan);

} // namespace cutrace

#endif
