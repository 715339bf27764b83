#include "HeaderSelection.h"

#include "AnnotationScanner.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
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
    bool Body = FD && FD->doesThisDeclarationHaveABody();
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

class Selection {
public:
  Selection(ASTContext &Ctx, const std::vector<Inclusion> &Inclusions)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Inclusions(Inclusions) {}

  std::vector<std::pair<const FileEntry *, HeaderModel>> select() {
    llvm::DenseMap<const FileEntry *, HeaderModel> Holds;
    for (const Inclusion &I : Inclusions)
      if (!Holds.count(I.Included) && isCopyable(I.Included))
        Holds[I.Included] = contentOf(I.Included);
    markTracedKernels(Holds);
    llvm::DenseSet<const FileEntry *> Needed;
    for (auto &[File, H] : Holds)
      if (H.Annotated || H.Launches || H.TracedKernels || H.TracedUses)
        Needed.insert(File);
    // A copy is reached only through copies of its includers: each of them is copied as well,
    // whatever its kind (a `#pragma once` original must never be included beside its copy).
    const FileEntry *Main = SM.getFileEntryForID(SM.getMainFileID());
    for (bool Grew = true; Grew;) {
      Grew = false;
      for (const Inclusion &I : Inclusions)
        if (Needed.contains(I.Included) && I.Includer != Main && Holds.count(I.Includer))
          Grew |= Needed.insert(I.Includer).second;
    }
    std::vector<std::pair<const FileEntry *, HeaderModel>> Out;
    for (const FileEntry *F : Needed)
      Out.push_back({F, Holds.lookup(F)});
    return Out;
  }

private:
  ASTContext &Ctx;
  const SourceManager &SM;
  const std::vector<Inclusion> &Inclusions;

  /// A file on disk that is not the tool's own header.
  bool isCopyable(const FileEntry *F) const {
    if (!F)
      return false;
    llvm::StringRef Name = F->tryGetRealPathName();
    return !Name.empty() && !Name.starts_with("/__cutrace__/") && SM.translateFile(F).isValid();
  }

  bool isSystem(const FileEntry *F) const {
    // At the end of the file: `#pragma GCC system_header` makes the rest of a header a system one.
    FileID ID = SM.translateFile(F);
    return SrcMgr::isSystem(SM.getFileCharacteristic(SM.getLocForEndOfFile(ID)));
  }

  /// Cheap text tests first: most headers hold nothing to trace.
  HeaderModel contentOf(const FileEntry *F) const {
    HeaderModel H;
    H.System = isSystem(F);
    std::optional<llvm::StringRef> Text = SM.getBufferDataOrNone(SM.translateFile(F));
    if (!Text)
      return H;
    H.Annotated = Text->contains("TRACE_") && !scanAnnotations(*Text).Annotations.empty();
    // A project header's launches are routed even when their kernel is not known here (a
    // function pointer, another file's kernel); a system header's only when it names one.
    H.Launches = !H.System && (Text->contains("<<<") || Text->contains("cudaLaunchKernel") ||
                               Text->contains("cudaLaunchCooperativeKernel"));
    return H;
  }

  void markTracedKernels(llvm::DenseMap<const FileEntry *, HeaderModel> &Holds) const {
    CallGraph Graph(SM);
    Graph.TraverseDecl(Ctx.getTranslationUnitDecl());
    llvm::DenseSet<const FunctionDecl *> Reach = Graph.reaching();
    for (auto &[Kernel, File] : Graph.KernelFiles)
      if (Reach.contains(Kernel) && Holds.count(File))
        Holds[File].TracedKernels = true;
    for (auto &[Kernel, File] : Graph.KernelNames)
      if (Reach.contains(Kernel) && Holds.count(File))
        Holds[File].TracedUses = true;
  }
};

} // namespace

std::vector<std::pair<const FileEntry *, HeaderModel>>
selectHeaders(ASTContext &Ctx, const std::vector<Inclusion> &Inclusions) {
  return Selection(Ctx, Inclusions).select();
}

std::map<const FileEntry *, std::map<unsigned, std::string>>
reachedFromKernelsElsewhere(ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  CallGraph Graph(SM);
  Graph.TraverseDecl(Ctx.getTranslationUnitDecl());
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
  std::map<const FileEntry *, std::map<unsigned, std::string>> Out;
  for (auto &[Kernel, File] : Graph.KernelFiles) {
    if (!File)
      continue;
    std::string Named = "'" + Kernel->getQualifiedNameAsString() + "' (" +
                        llvm::sys::path::filename(File->tryGetRealPathName()).str() + ")";
    for (const FunctionDecl *F : Graph.reachedFrom(Kernel)) {
      auto [Where, Brace] = bodyOf(F);
      if (Where && Where != File)
        Out[Where].try_emplace(Brace, Named);
    }
  }
  return Out;
}

std::string copyReason(const HeaderModel &H) {
  std::vector<std::string> Why;
  if (H.Annotated)
    Why.push_back("holds annotations");
  if (H.TracedKernels)
    Why.push_back("defines a kernel that reaches annotated code");
  if (H.TracedUses)
    Why.push_back("launches or names a kernel that reaches annotated code");
  if (H.Launches)
    Why.push_back("launches kernels");
  std::string Out;
  for (const std::string &W : Why)
    Out += (Out.empty() ? "" : ", ") + W;
  return Out.empty() ? "includes a copied header" : Out;
}

} // namespace cutrace
