#include "model/UnitCalls.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Path.h"

namespace cutrace {
namespace {
using namespace clang;

bool isAnnotationCall(const CallExpr *Call) {
  auto InTool = [](const NamedDecl *D) {
    return D && llvm::StringRef(D->getQualifiedNameAsString()).starts_with("cutrace_tool::");
  };
  if (InTool(Call->getDirectCallee()))
    return true;
  if (auto *Lookup = dyn_cast<UnresolvedLookupExpr>(Call->getCallee()->IgnoreImplicit()))
    for (const NamedDecl *D : Lookup->decls())
      if (InTool(D))
        return true;
  return false;
}

/// Who calls or names whom, template instances included, and which functions hold annotations:
/// enough to tell the kernels that reach annotated code and the files that name them.
class CallGraph : public RecursiveASTVisitor<CallGraph> {
public:
  explicit CallGraph(const SourceManager &SM) : SM(SM) {}

  bool shouldVisitTemplateInstantiations() const { return true; }

  bool TraverseDecl(Decl *D) {
    auto *FD = dyn_cast_or_null<FunctionDecl>(D);
    // A function the precompiled prelude holds (docs/design.md, "The prelude, precompiled") was
    // parsed before the user's code existed: its body names none of the user's functions, and
    // reading it back would cost more than the rest of a small file's parse. Instances made in
    // this unit are not from the prelude and are walked.
    if (FD && FD->isFromASTFile() && !FD->isTemplateInstantiation())
      return true;
    bool Body = FD && FD->doesThisDeclarationHaveABody();
    if (FD && !Body && !FD->isTemplateInstantiation() &&
        (FD->hasAttr<CUDAGlobalAttr>() || FD->hasAttr<CUDADeviceAttr>()))
      Declarations.push_back({FD->getCanonicalDecl(), fileOf(FD->getLocation())});
    if (Body) {
      Enclosing.push_back(FD->getCanonicalDecl());
      if (FD->hasAttr<CUDAGlobalAttr>())
        KernelFiles.push_back({FD->getCanonicalDecl(), fileOf(FD->getLocation())});
    }
    bool Continue = RecursiveASTVisitor::TraverseDecl(D);
    if (Body)
      Enclosing.pop_back();
    return Continue;
  }

  bool VisitCallExpr(CallExpr *Call) {
    if (!Enclosing.empty() && isAnnotationCall(Call))
      Annotated.insert(Enclosing.back());
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (auto *F = dyn_cast<FunctionDecl>(E->getDecl())) {
      edge(F);
      if (F->hasAttr<CUDAGlobalAttr>())
        KernelNames.push_back({F->getCanonicalDecl(), fileOf(E->getLocation())});
    }
    return true;
  }
  bool VisitMemberExpr(MemberExpr *E) {
    if (auto *F = dyn_cast<FunctionDecl>(E->getMemberDecl()))
      edge(F);
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    edge(E->getConstructor());
    return true;
  }

  /// Functions that hold annotations or call, directly or not, one that does.
  llvm::DenseSet<const FunctionDecl *> reaching() const {
    llvm::DenseSet<const FunctionDecl *> Reach(Annotated.begin(), Annotated.end());
    llvm::SmallVector<const FunctionDecl *, 32> Work(Annotated.begin(), Annotated.end());
    while (!Work.empty()) {
      auto It = Callers.find(Work.pop_back_val());
      if (It != Callers.end())
        for (const FunctionDecl *Caller : It->second)
          if (Reach.insert(Caller).second)
            Work.push_back(Caller);
    }
    return Reach;
  }

  /// Every function a kernel calls, directly or not (the kernel included).
  llvm::DenseSet<const FunctionDecl *> reachedFrom(const FunctionDecl *Kernel) const {
    llvm::DenseSet<const FunctionDecl *> Seen{Kernel};
    llvm::SmallVector<const FunctionDecl *, 32> Work{Kernel};
    while (!Work.empty()) {
      auto It = Callees.find(Work.pop_back_val());
      if (It != Callees.end())
        for (const FunctionDecl *Callee : It->second)
          if (Seen.insert(Callee).second)
            Work.push_back(Callee);
    }
    return Seen;
  }

  using FileUse = std::pair<const FunctionDecl *, const FileEntry *>;
  std::vector<FileUse> KernelFiles; // where each kernel (template instances too) is defined
  std::vector<FileUse> KernelNames; // where each kernel is launched or named
  std::vector<FileUse> Declarations; // device code declared without a body there

private:
  const SourceManager &SM;
  std::vector<const FunctionDecl *> Enclosing;
  llvm::DenseSet<const FunctionDecl *> Annotated;
  llvm::DenseMap<const FunctionDecl *, llvm::SmallVector<const FunctionDecl *, 4>> Callers;
  llvm::DenseMap<const FunctionDecl *, llvm::SmallVector<const FunctionDecl *, 4>> Callees;

  void edge(const FunctionDecl *Callee) {
    if (Callee && !Enclosing.empty()) {
      Callers[Callee->getCanonicalDecl()].push_back(Enclosing.back());
      Callees[Enclosing.back()].push_back(Callee->getCanonicalDecl());
    }
  }
  const FileEntry *fileOf(SourceLocation Loc) const {
    return Loc.isValid() ? SM.getFileEntryForID(SM.getFileID(SM.getExpansionLoc(Loc))) : nullptr;
  }
};

} // namespace

CallFacts analyzeCalls(ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  CallGraph Graph(SM);
  Graph.TraverseDecl(Ctx.getTranslationUnitDecl());
  CallFacts Facts;
  Facts.Reaching = Graph.reaching();
  // A template reaches annotations when one of its instances does: a pattern's calls that a
  // template parameter decides (`Kernel::operator()(args...)` in FlashAttention-3's
  // `enable_sm90`) are edges of its instances only.
  llvm::SmallVector<const FunctionDecl *, 32> Patterns;
  for (const FunctionDecl *F : Facts.Reaching)
    if (const FunctionDecl *Pattern = F->getTemplateInstantiationPattern())
      Patterns.push_back(Pattern->getCanonicalDecl());
  Facts.Reaching.insert(Patterns.begin(), Patterns.end());
  Facts.KernelFiles = Graph.KernelFiles;
  Facts.KernelNames = Graph.KernelNames;
  for (auto &[Function, File] : Graph.Declarations)
    if (File && Facts.Reaching.contains(Function))
      Facts.DeclaresTraced.insert(File);
  // Where a function's body is written: a template instance's is its pattern's.
  auto bodyOf = [&](const FunctionDecl *F) -> std::pair<const FileEntry *, unsigned> {
    if (const FunctionDecl *Pattern = F->getTemplateInstantiationPattern())
      F = Pattern;
    const FunctionDecl *Definition = nullptr;
    if (!F->hasBody(Definition) || !Definition->getBody())
      return {nullptr, 0};
    SourceLocation Brace = SM.getExpansionLoc(Definition->getBody()->getBeginLoc());
    return {SM.getFileEntryForID(SM.getFileID(Brace)), SM.getFileOffset(Brace)};
  };
  for (auto &[Kernel, File] : Graph.KernelFiles) {
    if (!File || !Facts.Reaching.contains(Kernel))
      continue;
    std::string Named = "'" + Kernel->getQualifiedNameAsString() + "' (" +
                        llvm::sys::path::filename(File->tryGetRealPathName()).str() + ")";
    for (const FunctionDecl *F : Graph.reachedFrom(Kernel)) {
      if (!Facts.Reaching.contains(F))
        continue;
      auto [Where, Brace] = bodyOf(F);
      if (!Where)
        continue;
      Facts.OnTracedPath.insert(Where);
      if (Where != File)
        Facts.ReachedFromKernelElsewhere[Where].try_emplace(Brace, Named);
    }
  }
  return Facts;
}

} // namespace cutrace
