#include "model/ModelBuilder.h"
#include "model/ModelBuilderVisitor.h"

#include "model/AnnotationCalls.h"

#include "clang/AST/ASTLambda.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"

// The traversal, and what every part of the builder asks: where a location is written, which
// function holds a statement, whether it is device code; goto and switch jumps.
namespace cutrace::builder {
using namespace clang;

bool ModelBuilder::VisitCallExpr(CallExpr *Call) {
  if (auto Kind = annotationCallKind(Call))
    recordUse(Call, *Kind);
  else {
    recordLaunchApiCall(Call);
    recordHelperCall(Call);
    recordDependentCall(Call);
  }
  return true;
}

bool ModelBuilder::TraverseDecl(Decl *D) {
  if (D && Visit && modelReach(*D, SM, *Visit) == ModelReach::Outside)
    return true;
  return RecursiveASTVisitor::TraverseDecl(D);
}

void ModelBuilder::build(TranslationUnitDecl *TU) {
  TraverseDecl(TU);
  // Instantiations resolve the calls their pattern left dependent.
  for (HelperCall &C : Model.HelperCalls)
    C.Dispatch = DependentCalls.count(C.RParen) > 0;
}

bool ModelBuilder::VisitGotoStmt(GotoStmt *Goto) {
  if (const LabelStmt *Label = Goto->getLabel()->getStmt())
    recordJump(Goto->getGotoLoc(), Label->getBeginLoc(), false);
  return true;
}

bool ModelBuilder::VisitSwitchStmt(SwitchStmt *Switch) {
  for (const SwitchCase *C = Switch->getSwitchCaseList(); C; C = C->getNextSwitchCase())
    recordJump(Switch->getSwitchLoc(), C->getBeginLoc(), true);
  return true;
}

bool ModelBuilder::inDeviceCode(const Stmt *S) {
  llvm::DenseSet<const FunctionDecl *> HostLambdas; // passed on to their enclosing function
  DynTypedNodeList Parents = Ctx.getParents(*S);
  while (!Parents.empty()) {
    DynTypedNode Node = Parents[0];
    const FunctionDecl *FD = Node.get<FunctionDecl>();
    if (auto *Lambda = Node.get<LambdaExpr>())
      FD = Lambda->getCallOperator();
    if (FD && !HostLambdas.contains(FD)) {
      // Clang makes unannotated lambdas implicitly __host__ __device__: such a lambda runs
      // where its enclosing function does.
      auto *Method = dyn_cast<CXXMethodDecl>(FD);
      const auto *Device = FD->getAttr<CUDADeviceAttr>();
      if (!(Method && Method->getParent()->isLambda()) || (Device && !Device->isImplicit()))
        return Device || FD->hasAttr<CUDAGlobalAttr>();
      HostLambdas.insert(FD);
    }
    Parents = Ctx.getParents(Node);
  }
  return false;
}

SourceLocation ModelBuilder::bodyLoc(SourceLocation Loc) const {
  while (Loc.isMacroID())
    Loc = SM.isMacroArgExpansion(Loc) ? SM.getImmediateExpansionRange(Loc).getBegin()
                                      : SM.getImmediateSpellingLoc(Loc);
  return SM.getFileEntryForID(SM.getFileID(Loc)) == Target ? Loc : SourceLocation();
}

std::optional<Span> ModelBuilder::bodySpan(SourceRange R) const {
  return tokenSpan(bodyLoc(R.getBegin()), bodyLoc(R.getEnd()));
}

std::optional<Span> ModelBuilder::tokenSpan(SourceLocation B, SourceLocation E) const {
  if (B.isInvalid() || E.isInvalid() || SM.getFileID(B) != SM.getFileID(E))
    return std::nullopt;
  unsigned End = SM.getFileOffset(E) + Lexer::MeasureTokenLength(E, SM, Ctx.getLangOpts());
  if (End <= SM.getFileOffset(B))
    return std::nullopt;
  return Span{SM.getFileOffset(B), End};
}

SourceLocation ModelBuilder::argumentLoc(SourceLocation Loc) const {
  if (!Loc.isMacroID() || !SM.isMacroArgExpansion(Loc))
    return Loc.isFileID() ? Loc : SourceLocation();
  SourceLocation Spelled = SM.getSpellingLoc(Loc);
  return SM.getFileEntryForID(SM.getFileID(Spelled)) == Target ? Spelled : SourceLocation();
}

std::optional<Span> ModelBuilder::argumentSpan(SourceRange R) const {
  return tokenSpan(argumentLoc(R.getBegin()), argumentLoc(R.getEnd()));
}

SourceLocation ModelBuilder::splitTokenLoc(SourceLocation Loc) const {
  if (!Loc.isMacroID())
    return Loc;
  CharSourceRange R = SM.getImmediateExpansionRange(Loc);
  if (R.isTokenRange() || !R.getBegin().isFileID() || SM.getCharacterData(R.getBegin())[0] != '>')
    return Loc;
  return R.getBegin();
}

unsigned ModelBuilder::endOfToken(SourceLocation Loc) const {
  SourceLocation File = SM.getFileLoc(Loc);
  return SM.getFileOffset(File) + Lexer::MeasureTokenLength(File, SM, Ctx.getLangOpts());
}

void ModelBuilder::recordJump(SourceLocation From, SourceLocation To, bool IsCase) {
  std::optional<unsigned> F = writtenOffset(SM, Target, From), T = writtenOffset(SM, Target, To);
  // Instantiations repeat their pattern's jumps.
  if (F && T && SeenJumps.insert({*F, *T}).second)
    Model.Jumps.push_back({*F, *T, IsCase});
}

std::string ModelBuilder::spelled(SourceRange R) const {
  return Lexer::getSourceText(SM.getExpansionRange(R), SM, Ctx.getLangOpts()).str();
}

const FunctionDecl *ModelBuilder::patternOf(const FunctionDecl *FD) {
  const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern();
  return (Pattern ? Pattern : FD)->getCanonicalDecl();
}

const FunctionDecl *ModelBuilder::enclosingFunction(const Stmt *S) {
  DynTypedNodeList Parents = Ctx.getParents(*S);
  while (!Parents.empty()) {
    DynTypedNode Node = Parents[0];
    if (const auto *FD = Node.get<FunctionDecl>()) {
      auto *Method = dyn_cast<CXXMethodDecl>(FD);
      if (!(Method && Method->getParent()->isLambda()))
        return FD;
    }
    Parents = Ctx.getParents(Node);
  }
  return nullptr;
}

bool ModelBuilder::inLambdaWithoutReferenceCapture(const Stmt *S) {
  DynTypedNodeList Parents = Ctx.getParents(*S);
  while (!Parents.empty()) {
    if (auto *Lambda = Parents[0].get<LambdaExpr>();
        Lambda && Lambda->getCaptureDefault() != LCD_ByRef)
      return true;
    if (auto *FD = Parents[0].get<FunctionDecl>()) {
      if (!isLambdaCallOperator(FD))
        return false;
      if (cast<CXXMethodDecl>(FD)->getParent()->getLambdaCaptureDefault() != LCD_ByRef)
        return true;
    }
    Parents = Ctx.getParents(Parents[0]);
  }
  return false;
}

std::optional<Span> ModelBuilder::writtenSpan(SourceLocation B, SourceLocation E) const {
  if (B.isMacroID() || E.isMacroID())
    return std::nullopt;
  std::optional<unsigned> Begin = writtenOffset(SM, Target, B);
  std::optional<unsigned> End = writtenOffset(SM, Target, E);
  if (!Begin || !End)
    return std::nullopt;
  return Span{*Begin, endOfToken(E)};
}

std::optional<unsigned> ModelBuilder::parenAfter(SourceLocation Loc) const {
  std::optional<Token> Open = Lexer::findNextToken(SM.getFileLoc(Loc), SM, Ctx.getLangOpts());
  if (!Open || !Open->is(tok::l_paren))
    return std::nullopt;
  return writtenOffset(SM, Target, Open->getLocation());
}

} // namespace cutrace::builder

namespace cutrace {

using namespace clang;

ModelReach modelReach(const Decl &D, const SourceManager &SM, const FilesToVisit &Visit) {
  if (isa<TranslationUnitDecl, NamespaceDecl, LinkageSpecDecl, ExportDecl, TemplateDecl>(D))
    return ModelReach::Through;
  // Instances carry their pattern's location, so an instance of another file's template whose
  // pattern is written here (a partial specialization) is still walked.
  if (SourceLocation At = D.getBeginLoc(); At.isValid())
    if (const FileEntry *File = SM.getFileEntryForID(SM.getFileID(SM.getExpansionLoc(At)));
        File && !Visit.contains(File))
      return ModelReach::Outside;
  return ModelReach::Walked;
}

void buildModel(clang::ASTContext &Ctx, const clang::Preprocessor &PP, SourceModel &Model,
                const clang::FileEntry *File, const CallFacts &Calls, bool AutoKernels,
                const FilesToVisit *Visit) {
  builder::ModelBuilder Builder(Ctx, PP, Model, File, Calls, Visit);
  Builder.build(Ctx.getTranslationUnitDecl());
  if (AutoKernels)
    Builder.addAutoKernels(Ctx.getTranslationUnitDecl());
}

} // namespace cutrace
