// Calls from device code of functions that reach annotations, and calls whose callee a
// template parameter decides (rewriter/model/ModelBuilderVisitor.h).
#include "model/ModelBuilderVisitor.h"

#include "model/AnnotationCalls.h"

#include "clang/AST/ASTLambda.h"

namespace cutrace::builder {
using namespace clang;

void ModelBuilder::recordHelperCall(const CallExpr *Call) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD || !FD->hasAttr<CUDADeviceAttr>() || FD->hasAttr<CUDAGlobalAttr>() ||
      isa<CXXConstructorDecl, CXXDestructorDecl, CXXConversionDecl>(FD))
    return;
  if (auto *Op = dyn_cast<CXXOperatorCallExpr>(Call); Op && Op->getOperator() != OO_Call)
    return; // an operator other than () cannot be sent to a twin (Verify refuses annotations)
  const FunctionDecl *Canonical = patternOf(FD), *Definition = nullptr;
  if (!Canonical->isDefined(Definition) || !Definition->getBody())
    return;
  // A function defined in another file is a callee here only when it reaches annotations: its
  // twin is written in its own file (docs/design.md, "Calls across files").
  const bool Here = writtenOffset(SM, Target, Definition->getLocation()).has_value();
  if (!Here && !Calls.Reaching.contains(FD->getCanonicalDecl()))
    return;
  std::optional<unsigned> RParen = writtenOffset(SM, Target, Call->getRParenLoc());
  if (!RParen || !inDeviceCode(Call))
    return;
  HelperCall C;
  C.RParen = *RParen;
  C.InMacro = Call->getRParenLoc().isMacroID();
  if (!describeCallee(Call, C))
    return; // a call through a pointer: it reaches the original (docs/annotations.md)
  C.Helper = helperIndex(Canonical);
  if (!Here)
    describeDefinitionElsewhere(Definition, Model.Helpers[C.Helper]);
  if (!SeenHelperCalls.insert({C.RParen, C.Helper}).second)
    return;
  C.HasArgs = Call->getNumArgs() > (C.CallOperator ? 1u : 0u) &&
              !isa<CXXDefaultArgExpr>(Call->getArg(C.CallOperator ? 1 : 0));
  C.Member = isa<CXXMethodDecl>(FD) ? FD->getNameAsString() : "";
  C.InLambdaByCopy = inLambdaWithoutReferenceCapture(Call);
  Model.HelperCalls.push_back(C);
  // A kernel calling a __device__ function of the file is known even without annotations or
  // launches of its own: a group declared on its call path makes it a traced kernel.
  if (const FunctionDecl *Caller = enclosingFunction(Call);
      Caller && Caller->hasAttr<CUDAGlobalAttr>())
    kernelIndex(patternOf(Caller));
}

void ModelBuilder::recordDependentCall(const CallExpr *Call) {
  const Expr *Callee = Call->getCallee()->IgnoreParenImpCasts();
  if (!Callee->isTypeDependent() || isa<UnresolvedLookupExpr, UnresolvedMemberExpr>(Callee))
    return;
  if (std::optional<unsigned> RParen = writtenOffset(SM, Target, Call->getRParenLoc()))
    DependentCalls.insert(*RParen);
}

bool ModelBuilder::describeCallee(const CallExpr *Call, HelperCall &C) {
  const Expr *Callee = Call->getCallee()->IgnoreParenImpCasts();
  SourceLocation NameBegin, NameEnd, Last;
  if (auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
    const Expr *Object = Op->getArg(0);
    std::optional<Span> O = writtenSpan(Object->getBeginLoc(), Object->getEndLoc());
    if (!O)
      return false;
    C.CallOperator = true;
    C.Object = C.CalleeName = *O;
    Last = Object->getEndLoc();
  } else if (auto *Member = dyn_cast<MemberExpr>(Callee)) {
    NameBegin = Member->getMemberNameInfo().getBeginLoc();
    NameEnd = Member->getMemberNameInfo().getEndLoc();
    Last = Member->getEndLoc();
    C.ExplicitTemplateArgs = Member->hasExplicitTemplateArgs();
    C.ImplicitThis = Member->isImplicitAccess();
    if (NestedNameSpecifierLoc Q = Member->getQualifierLoc(); C.ImplicitThis && Q) {
      // `Kernel::operator()(args...)` in a class deriving from `Kernel`.
      std::optional<Span> QS = writtenSpan(Q.getBeginLoc(), Q.getEndLoc());
      if (!QS)
        return false;
      C.BaseQualifier = *QS;
    }
    if (!C.ImplicitThis) {
      const Expr *Base = Member->getBase();
      std::optional<Span> O = writtenSpan(Base->getBeginLoc(), Base->getEndLoc());
      if (!O)
        return false;
      C.Object = *O;
      C.Arrow = Member->isArrow();
    }
  } else if (auto *Ref = dyn_cast<DeclRefExpr>(Callee)) {
    NameBegin = Ref->getNameInfo().getBeginLoc();
    NameEnd = Ref->getNameInfo().getEndLoc();
    Last = Ref->getEndLoc();
    C.ExplicitTemplateArgs = Ref->hasExplicitTemplateArgs();
    if (NestedNameSpecifierLoc Q = Ref->getQualifierLoc()) {
      // `Op::f(x)`: the dispatcher names the class `Op` as a template argument.
      std::optional<Span> QS = writtenSpan(Q.getBeginLoc(), Q.getEndLoc());
      if (!QS)
        return false;
      C.Qualifier = *QS;
    }
  } else {
    return false;
  }
  if (NameBegin.isValid()) {
    std::optional<Span> Name = writtenSpan(NameBegin, NameEnd);
    if (!Name)
      return false;
    C.CalleeName = *Name;
    C.InMacro |= NameBegin.isMacroID();
  }
  std::optional<unsigned> LParen = parenAfter(Last);
  if (!LParen)
    return false;
  C.LParen = *LParen;
  return true;
}

} // namespace cutrace::builder
