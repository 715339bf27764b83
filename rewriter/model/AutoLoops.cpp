#include "model/AutoLoops.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include <algorithm>
#include <optional>

using namespace clang;

namespace cutrace {
namespace {

class LoopFinder {
public:
  LoopFinder(const SourceManager &SM, const LangOptions &Lang, const FileEntry *Target)
      : SM(SM), Lang(Lang), Target(Target) {}

  /// The loops under S that no loop under S encloses; lambdas are other functions.
  void outermost(const Stmt *S, std::vector<LoopSite> &Out) {
    if (!S || isa<LambdaExpr>(S))
      return;
    if (const Stmt *Body = loopBody(S)) {
      if (std::optional<LoopSite> L = site(S, Body))
        Out.push_back(std::move(*L));
      return;
    }
    for (const Stmt *Child : S->children())
      outermost(Child, Out);
  }

private:
  const SourceManager &SM;
  const LangOptions &Lang;
  const FileEntry *Target;

  static const Stmt *loopBody(const Stmt *S) {
    if (auto *F = dyn_cast<ForStmt>(S))
      return F->getBody();
    if (auto *W = dyn_cast<WhileStmt>(S))
      return W->getBody();
    if (auto *D = dyn_cast<DoStmt>(S))
      return D->getBody();
    if (auto *R = dyn_cast<CXXForRangeStmt>(S))
      return R->getBody();
    return nullptr;
  }

  static std::string form(const Stmt *S) {
    return isa<ForStmt>(S)     ? "for"
           : isa<WhileStmt>(S) ? "while"
           : isa<DoStmt>(S)    ? "do"
                               : "range-for";
  }

  /// Where Loc is written in the file: nothing spelled by a macro.
  std::optional<unsigned> offset(SourceLocation Loc) const {
    if (Loc.isInvalid() || Loc.isMacroID())
      return std::nullopt;
    if (SM.getFileEntryForID(SM.getFileID(Loc)) != Target)
      return std::nullopt;
    return SM.getFileOffset(Loc);
  }

  /// Just past the last character of S: its '}' or its ';'.
  std::optional<unsigned> statementEnd(const Stmt *S) const {
    if (auto *C = dyn_cast<CompoundStmt>(S)) {
      std::optional<unsigned> R = offset(C->getRBracLoc());
      return R ? std::optional<unsigned>(*R + 1) : std::nullopt;
    }
    if (auto *I = dyn_cast<IfStmt>(S))
      return statementEnd(I->getElse() ? I->getElse() : I->getThen());
    if (const Stmt *Body = loopBody(S); Body && !isa<DoStmt>(S))
      return statementEnd(Body);
    if (auto *Sw = dyn_cast<SwitchStmt>(S))
      return statementEnd(Sw->getBody());
    if (auto *L = dyn_cast<LabelStmt>(S))
      return statementEnd(L->getSubStmt());
    if (auto *C = dyn_cast<SwitchCase>(S))
      return statementEnd(C->getSubStmt());
    if (auto *A = dyn_cast<AttributedStmt>(S))
      return statementEnd(A->getSubStmt());
    if (auto *N = dyn_cast<NullStmt>(S)) {
      std::optional<unsigned> At = offset(N->getSemiLoc());
      return At ? std::optional<unsigned>(*At + 1) : std::nullopt;
    }
    // A statement ended by ';': after its last token, past blanks and comments.
    SourceLocation Last = S->getEndLoc();
    std::optional<unsigned> LastAt = offset(Last);
    if (!LastAt)
      return std::nullopt;
    llvm::StringRef Text = SM.getBufferData(SM.getFileID(Last));
    if (Text[*LastAt] == ';')
      return *LastAt + 1;
    unsigned I = *LastAt + Lexer::MeasureTokenLength(Last, SM, Lang);
    while (I < Text.size()) {
      if (std::isspace(static_cast<unsigned char>(Text[I]))) {
        ++I;
      } else if (Text.substr(I).starts_with("//")) {
        I = Text.find('\n', I);
        if (I == llvm::StringRef::npos)
          return std::nullopt;
      } else if (Text.substr(I).starts_with("/*")) {
        size_t E = Text.find("*/", I + 2);
        if (E == llvm::StringRef::npos)
          return std::nullopt;
        I = E + 2;
      } else {
        break;
      }
    }
    if (I < Text.size() && Text[I] == ';')
      return I + 1;
    return std::nullopt;
  }

  std::optional<LoopSite> site(const Stmt *Loop, const Stmt *Body) const {
    std::optional<unsigned> Keyword = offset(Loop->getBeginLoc());
    std::optional<unsigned> Begin = offset(Body->getBeginLoc());
    std::optional<unsigned> End = statementEnd(Body);
    if (!Keyword || !Begin || !End || *End <= *Begin)
      return std::nullopt;
    LoopSite L;
    L.Keyword = *Keyword;
    L.Form = form(Loop);
    L.Body = {*Begin, *End};
    L.BodyIsCompound = isa<CompoundStmt>(Body);
    llvm::StringRef Text = SM.getBufferData(SM.getFileID(Loop->getBeginLoc()));
    if (L.BodyIsCompound && Text[*Begin] != '{')
      return std::nullopt; // `<%`: rare enough to leave out
    return L;
  }
};

class KernelFinder : public RecursiveASTVisitor<KernelFinder> {
public:
  KernelFinder(ASTContext &Ctx, const FileEntry *Target) : Ctx(Ctx), Target(Target) {}

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (!FD->hasAttr<CUDAGlobalAttr>() || !FD->doesThisDeclarationHaveABody() || !FD->getBody() ||
        FD->isTemplateInstantiation())
      return true;
    const SourceManager &SM = Ctx.getSourceManager();
    SourceLocation Body = FD->getBody()->getBeginLoc();
    if (Body.isMacroID() || SM.getFileEntryForID(SM.getFileID(Body)) != Target)
      return true;
    AutoKernelFound K;
    K.Definition = FD;
    LoopFinder(SM, Ctx.getLangOpts(), Target).outermost(FD->getBody(), K.Loops);
    Found.push_back(std::move(K));
    return true;
  }

  std::vector<AutoKernelFound> Found;

private:
  ASTContext &Ctx;
  const FileEntry *Target;
};

} // namespace

std::vector<AutoKernelFound> autoKernelsIn(TranslationUnitDecl *TU, const FileEntry *Target) {
  KernelFinder Finder(TU->getASTContext(), Target);
  Finder.TraverseDecl(TU);
  return std::move(Finder.Found);
}

void mergeLoops(std::vector<LoopSite> &Into, const std::vector<LoopSite> &From) {
  for (const LoopSite &L : From)
    if (std::none_of(Into.begin(), Into.end(),
                     [&](const LoopSite &I) { return I.Keyword == L.Keyword; }))
      Into.push_back(L);
  std::sort(Into.begin(), Into.end(),
            [](const LoopSite &A, const LoopSite &B) { return A.Keyword < B.Keyword; });
}

} // namespace cutrace
