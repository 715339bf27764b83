// The annotations as the tool's parse sees them (runtime/include/cutrace/trace.h under
// CUTRACE_TOOL_PARSE): calls of functions in namespace cutrace_tool, located in the file a model
// describes.
#ifndef CUTRACE_REWRITER_ANNOTATIONCALLS_H
#define CUTRACE_REWRITER_ANNOTATIONCALLS_H

#include "lex/Annotation.h"
#include "clang/Basic/SourceLocation.h"
#include <optional>

namespace clang {
class CallExpr;
class FileEntry;
class NamedDecl;
class SourceManager;
} // namespace clang

namespace cutrace {

/// A declaration of the parse-view header.
bool inToolNamespace(const clang::NamedDecl *D);

/// The annotation a call to the parse-view header stands for, if it is one.
std::optional<AnnotationKind> annotationCallKind(const clang::CallExpr *Call);

/// Where Loc is written in the model's file (the main file, or one project header): macro
/// arguments resolve to their spelling.
std::optional<unsigned> writtenOffset(const clang::SourceManager &SM,
                                      const clang::FileEntry *Target, clang::SourceLocation Loc);

} // namespace cutrace

#endif
