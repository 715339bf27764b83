// trace-rewrite's options: the checks across them and the request they make for each file
// (tool/trace-rewrite/main.cpp parses the command line and runs the pipeline).
#ifndef CUTRACE_TRACE_REWRITE_OPTIONS_H
#define CUTRACE_TRACE_REWRITE_OPTIONS_H

#include "pipeline/Rewrite.h"
#include "report/ExplainOutput.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/CommandLine.h"
#include <optional>
#include <string>
#include <vector>

namespace trace_rewrite {

extern llvm::cl::OptionCategory Category;

/// The files named on the command line, in order.
std::vector<std::string> inputFiles();

void usageError(const llvm::Twine &Message);

/// The checks across options the parser cannot make; false after printing the first problem.
bool validateOptions();

/// --explain[=where] wins over CUTRACE_EXPLAIN; --explain-dir over CUTRACE_EXPLAIN_DIR.
std::optional<cutrace::ExplainOutput> explainOutput();

/// Strip needs no parse, so only the parsing modes check where CUDA is.
bool validateCompileSettings(const cutrace::RewriteRequest &Request);

cutrace::RewriteRequest requestFor(const std::string &Path, std::vector<std::string> CommandTail);

/// `--traced -o -` writes the source to stdout but the decode map to files: say where, so they
/// are not found later by surprise in the working directory (docs/cli.md).
void noteMapBesideStdout(const cutrace::RewriteResult &Result);

} // namespace trace_rewrite

#endif
