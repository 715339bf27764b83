// Strip: delete every annotation so the file equals, byte for byte, the one its author would have
// written without them (docs/design.md, "Strip contract"). Purely textual over the lexical scan.
#ifndef CUTRACE_REWRITER_STRIP_H
#define CUTRACE_REWRITER_STRIP_H

#include "lex/AnnotationScanner.h"
#include <string>
#include <vector>

namespace cutrace {

/// The byte ranges strip deletes for these annotation statements: whole lines where the line
/// holds nothing else (but whitespace and comments), else the statement and the
/// whitespace that separates it from the neighbouring code. Sorted, non-overlapping.
std::vector<Span> planStripDeletions(llvm::StringRef Buffer, std::vector<Span> Statements);

/// Buffer with the given ranges removed (ranges sorted and non-overlapping).
std::string applyDeletions(llvm::StringRef Buffer, const std::vector<Span> &Deletions);

/// Every statement strip removes: annotations and the `#include <cutrace/trace.h>` lines.
std::vector<Span> strippedStatements(const ScanResult &Scan);

std::string stripAnnotations(llvm::StringRef Buffer, const ScanResult &Scan);

} // namespace cutrace

#endif
