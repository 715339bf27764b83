// TRACE_SAMPLE and TRACE_SAMPLE_REST in a twin (docs/annotations.md, "TRACE_SAMPLE"): what they
// sample stands twice, with its markers where the condition holds and as strip writes it
// otherwise, so the executions left out run the original machine code.
#ifndef CUTRACE_REWRITER_TRACEDSAMPLES_H
#define CUTRACE_REWRITER_TRACEDSAMPLES_H

#include "lex/Edit.h"
#include "lex/LineIndex.h"
#include "lex/Problem.h"
#include "model/SourceModel.h"
#include "traced/TracedRewrite.h"
#include "llvm/ADT/ArrayRef.h"

namespace cutrace {

/// The TRACE_SAMPLE A of a twin's function (its model U) as edits of the twin's copy: the
/// annotation opens `if (cond) {` and the statement's end closes it with an `else` branch holding
/// the statement without annotations. Annotations: every annotation of the file; TracedCalls: the
/// offsets of the function's calls that reach recording twins; CopyEdits: what every copy of the
/// file's code takes (the plain branch takes them too). Problems: a range the statement
/// ends but does not begin (the executions left out would never end it), and a warning when the
/// statement records nothing.
void planSample(llvm::StringRef Buffer, const LineIndex &Lines, const TracedOptions &Options,
                llvm::ArrayRef<Annotation> Annotations, const Annotation &A,
                const AnnotationUse &U, llvm::ArrayRef<unsigned> TracedCalls,
                const std::vector<Edit> &CopyEdits, std::vector<Edit> &TwinEdits,
                std::vector<Problem> &Problems);

} // namespace cutrace

#endif
