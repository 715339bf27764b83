// Value uses of traced kernels in a traced build (docs/launches.md, "Kernels taken as values"):
// each use of a template kernel's instance as a pointer becomes the registering form of the same
// pointer (cutrace::Registered<...>::value), so that its pair is registered before main; uses the
// rewrite cannot route are warned about and registered with the runtime, which says at exit how
// many launches the selection asked for ran unrecorded.
#ifndef CUTRACE_REWRITER_TRACEDVALUES_H
#define CUTRACE_REWRITER_TRACEDVALUES_H

#include "lex/Edit.h"
#include "lex/LineIndex.h"
#include "traced/TracedRewrite.h"
#include "llvm/ADT/DenseSet.h"
#include <map>
#include <vector>

namespace cutrace {

struct ValueEdits {
  /// Edits of value uses, apart from Plan.Edits: a launch whose callee holds one (`Fixed<&k<4>>::
  /// kernel<<<...>>>`) copies the callee with them applied.
  std::vector<Edit> Edits;
  /// The launch API calls whose kernel argument was routed, by offset: they need no warning.
  llvm::DenseSet<unsigned> RoutedLaunchApiCalls;
};

/// Plans the edits of every value use of a kernel in Twins (warnings and the end-of-file
/// registrations go into Plan).
ValueEdits planValueUses(llvm::StringRef Buffer, const LineIndex &Lines, const SourceModel &Model,
                         const std::map<int, TracedTwin> &Twins, const TracedOptions &Options,
                         TracedPlan &Plan);

} // namespace cutrace

#endif
