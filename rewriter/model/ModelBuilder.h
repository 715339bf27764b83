// Builds one file's SourceModel from a parsed translation unit (rewriter/model/SourceModel.cpp);
// the parse itself is driven by rewriter/model/SourceParse.cpp.
#ifndef CUTRACE_REWRITER_MODELBUILDER_H
#define CUTRACE_REWRITER_MODELBUILDER_H

#include "model/SourceModel.h"
#include "model/UnitCalls.h"
#include "llvm/ADT/DenseSet.h"

namespace clang {
class ASTContext;
class Decl;
class FileEntry;
class Preprocessor;
class SourceManager;
} // namespace clang

namespace cutrace {

/// The files whose code can hold what File's model describes: File, and the files where a macro
/// File defines is expanded (a launch or a call written in such a macro's body is File's).
using FilesToVisit = llvm::DenseSet<const clang::FileEntry *>;

/// The model of the translation unit's code written in File (the main file or one header); with
/// AutoKernels, its kernels and their outermost loops for `--auto` too. Visit, when given, leaves
/// out the declarations of other files (template patterns whose instances may be File's are
/// still walked): a CUDA unit includes hundreds of headers, and a model is built per file that
/// needs one.
void buildModel(clang::ASTContext &Ctx, const clang::Preprocessor &PP, SourceModel &Model,
                const clang::FileEntry *File, const CallFacts &Calls, bool AutoKernels = false,
                const FilesToVisit *Visit = nullptr);

/// How a model with Visit treats D: walks through it to what it holds (the unit, namespaces,
/// linkage specifications, templates: their instances are filtered one by one), leaves it out
/// (written in a file outside Visit), or walks it.
enum class ModelReach { Through, Outside, Walked };
ModelReach modelReach(const clang::Decl &D, const clang::SourceManager &SM,
                      const FilesToVisit &Visit);

} // namespace cutrace

#endif
