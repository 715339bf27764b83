// Builds one file's SourceModel from a parsed translation unit (rewriter/model/SourceModel.cpp); the
// parse itself is driven by rewriter/model/SourceParse.cpp.
#ifndef CUTRACE_REWRITER_MODELBUILDER_H
#define CUTRACE_REWRITER_MODELBUILDER_H

#include "model/SourceModel.h"
#include "model/UnitCalls.h"

namespace clang {
class ASTContext;
class FileEntry;
class Preprocessor;
} // namespace clang

namespace cutrace {

/// The model of the translation unit's code written in File (the main file or one header); with
/// AutoKernels, its kernels and their outermost loops for `--auto` too.
void buildModel(clang::ASTContext &Ctx, const clang::Preprocessor &PP, SourceModel &Model,
                const clang::FileEntry *File, const CallFacts &Calls, bool AutoKernels = false);

} // namespace cutrace

#endif
