#include "model/AnnotationCalls.h"

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"

namespace cutrace {

using namespace clang;

bool inToolNamespace(const NamedDecl *D) {
  return D && llvm::StringRef(D->getQualifiedNameAsString()).starts_with("cutrace_tool::");
}

std::optional<AnnotationKind> annotationCallKind(const CallExpr *Call) {
  const NamedDecl *Callee = Call->getDirectCallee();
  if (!Callee)
    if (auto *Lookup = dyn_cast<UnresolvedLookupExpr>(Call->getCallee()->IgnoreImplicit()))
      for (const NamedDecl *D : Lookup->decls())
        if (inToolNamespace(D))
          Callee = D;
  if (!inToolNamespace(Callee))
    return std::nullopt;
  llvm::StringRef Name = Callee->getName();
  if (Name == "group")
    return AnnotationKind::Group;
  if (Name == "range")
    return AnnotationKind::Range;
  if (Name == "range_start")
    return AnnotationKind::RangeStart;
  if (Name == "range_end")
    return AnnotationKind::RangeEnd;
  if (Name == "record")
    return AnnotationKind::Record;
  if (Name == "dag")
    return AnnotationKind::Dag;
  if (Name == "groups")
    return AnnotationKind::Groups;
  if (Name == "range_if")
    return AnnotationKind::RangeIf;
  if (Name == "record_if")
    return AnnotationKind::RecordIf;
  if (Name == "sample")
    return AnnotationKind::Sample;
  if (Name == "sample_rest")
    return AnnotationKind::SampleRest;
  return std::nullopt;
}

std::optional<unsigned> writtenOffset(const SourceManager &SM, const FileEntry *Target,
                                      SourceLocation Loc) {
  if (Loc.isInvalid())
    return std::nullopt;
  SourceLocation File = SM.getFileLoc(Loc);
  if (SM.getFileEntryForID(SM.getFileID(File)) != Target)
    return std::nullopt;
  return SM.getFileOffset(File);
}

} // namespace cutrace
