// TRACE_SAMPLE's statement (docs/annotations.md, "TRACE_SAMPLE"): the statement after the
// annotation in its block (TRACE_SAMPLE_REST: every statement after it), which the traced twin
// writes twice, with its markers for the executions the condition selects and without them for
// the others.
#ifndef CUTRACE_REWRITER_SAMPLEDSTATEMENT_H
#define CUTRACE_REWRITER_SAMPLEDSTATEMENT_H

#include "model/SourceModel.h"
#include "model/WgmmaReach.h"

namespace clang {
class ASTContext;
class CallExpr;
class FileEntry;
} // namespace clang

namespace cutrace {

/// Fills Use.Sampled with what a TRACE_SAMPLE or TRACE_SAMPLE_REST call (Call) selects, through
/// its `;` when it ends with one, or adds a problem saying why it cannot be written twice.
void describeSampled(const clang::CallExpr *Call, clang::ASTContext &Ctx,
                     const clang::FileEntry *Target, AnnotationUse &Use);

/// Whether what the TRACE_SAMPLE or TRACE_SAMPLE_REST call (Call, of Kind) samples issues wgmma.
bool sampleIssuesWgmma(const clang::CallExpr *Call, clang::ASTContext &Ctx, AnnotationKind Kind,
                       WgmmaReach &Reach);

} // namespace cutrace

#endif
