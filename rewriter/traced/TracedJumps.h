// A traced build declares a scope object where TRACE_RANGE, TRACE_RANGE_IF and
// TRACE_RANGE_START were written; C++ forbids a jump past such a declaration into its scope
// (docs/annotations.md, "Jumps"). These checks find each `goto` and each `case` label that would.
#ifndef CUTRACE_REWRITER_TRACEDJUMPS_H
#define CUTRACE_REWRITER_TRACEDJUMPS_H

#include "lex/LineIndex.h"
#include "model/SourceModel.h"
#include <vector>

namespace cutrace {

/// An error for each of Uses that a jump of Model skips into the scope of. A case label that
/// follows the annotation directly in a switch body is left to the switch check.
void checkJumpsOverScopeObjects(const SourceModel &Model,
                                const std::vector<const AnnotationUse *> &Uses,
                                const LineIndex &Lines, std::vector<Problem> &Problems);

} // namespace cutrace

#endif
