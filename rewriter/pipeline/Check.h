// Scan-and-check stage: the lexical scan, the Clang passes, and the annotation rules
// (docs/annotations.md) checked over both. Diagnostics are shown on `Shown` as they are found and
// kept, uncoloured, in the run log.
#ifndef CUTRACE_REWRITER_PIPELINE_CHECK_H
#define CUTRACE_REWRITER_PIPELINE_CHECK_H

#include "lex/AnnotationScanner.h"
#include "model/SourceModel.h"
#include "pipeline/Input.h"
#include "pipeline/RunLog.h"
#include "strip/Verify.h"
#include "llvm/Support/raw_ostream.h"
#include <vector>

namespace cutrace {

/// Counts of annotations per kind ("TRACE_RANGE": 2, ...), kinds that occur only.
std::vector<Count> annotationCounts(const ScanResult &Scan);

unsigned countLevel(const std::vector<Problem> &Problems, Severity Level);

/// Prints problems compiler-style on Shown and returns the same text uncoloured.
std::string showProblems(const SourceFile &F, const std::vector<Problem> &Problems,
                         llvm::raw_ostream &Shown);

/// One line on Shown, returned with its newline for the log.
std::string showLine(const std::string &Line, llvm::raw_ostream &Shown);

ScanResult collectAnnotations(const SourceFile &F, RunLog &Log);

/// Lexical rule violations end strip and traced runs before anything is parsed.
bool lexicalRulesHold(const SourceFile &F, const ScanResult &Scan, RunLog &Log,
                      llvm::raw_ostream &Shown);

/// The host pass and one device pass per arch in Archs (each parsed as compat::archParse says),
/// run concurrently, host first in the result; logged as the host stage and one device stage. A
/// pass that cannot run fails its stage.
std::vector<ParseOutcome> parsePasses(const SourceFile &F, const compat::ParseOptions &Options,
                                      llvm::ArrayRef<std::string> Archs, RunLog &Log);

/// A note for each Clang error the passes accepted as Clang-only (code nvcc compiles), once;
/// returns the text (for --explain), shown only when Verbose: they are known and harmless.
std::string showAcceptedClangErrors(llvm::ArrayRef<ParseOutcome> Passes, bool Verbose,
                                    llvm::raw_ostream &Shown);

/// --verify-strip's check: every rule over both passes; what could not be checked is a note (an
/// error when Strict); Verbose shows the notes of showAcceptedClangErrors.
Verdict checkForVerify(const SourceFile &F, const ScanResult &Scan,
                       llvm::ArrayRef<ParseOutcome> Passes, bool Strict, bool Verbose,
                       RunLog &Log, llvm::raw_ostream &Shown);

/// --traced's check: the passes it needs must have run, and the rules must hold. False ends the
/// run; Status says with which exit status. Verbose as for checkForVerify.
bool checkForTraced(const SourceFile &F, const ScanResult &Scan,
                    llvm::ArrayRef<ParseOutcome> Passes, bool Verbose, RunLog &Log,
                    llvm::raw_ostream &Shown, int &Status);

} // namespace cutrace

#endif
