// Kernels named other than as a launch's callee (their pointers) and explicit instantiations
// (rewriter/model/ModelBuilderVisitor.h).
#include "model/ModelBuilderVisitor.h"

#include "model/AnnotationCalls.h"

#include "clang/AST/ParentMapContext.h"

namespace cutrace::builder {
using namespace clang;

bool ModelBuilder::VisitDeclRefExpr(DeclRefExpr *Ref) {
  if (auto *FD = dyn_cast<FunctionDecl>(Ref->getDecl()); FD && FD->hasAttr<CUDAGlobalAttr>())
    recordValueUse(Ref, FD, Ref->getLocation());
  return true;
}

bool ModelBuilder::VisitUnresolvedLookupExpr(UnresolvedLookupExpr *Lookup) {
  for (const NamedDecl *D : Lookup->decls())
    if (auto *T = dyn_cast<FunctionTemplateDecl>(D);
        T && T->getTemplatedDecl()->hasAttr<CUDAGlobalAttr>()) {
      recordValueUse(Lookup, T->getTemplatedDecl(), Lookup->getNameLoc());
      break;
    }
  return true;
}

void ModelBuilder::recordValueUse(const Expr *Ref, const FunctionDecl *FD, SourceLocation NameLoc) {
  std::optional<unsigned> At = writtenOffset(SM, Target, NameLoc);
  if (!At)
    return;
  // A later instantiation's reference may name an explicit specialization: no twin of it.
  if (auto It = ValueUseAt.find(*At); It != ValueUseAt.end()) {
    if (FD->getTemplateSpecializationKind() == TSK_ExplicitSpecialization)
      unroutable(Model.ValueUses[It->second], "it names an explicit specialization, which has "
                                              "no traced twin");
    return;
  }
  const Expr *E = Ref;
  DynTypedNodeList Parents = Ctx.getParents(*E);
  while (!Parents.empty()) {
    const Expr *Up = Parents[0].get<Expr>();
    if (!Up || !(isa<ImplicitCastExpr, ParenExpr, UnaryOperator, ExplicitCastExpr>(Up)))
      break;
    E = Up;
    Parents = Ctx.getParents(*E);
  }
  // A template parameter's argument, substituted into an instantiation: written elsewhere.
  if (!Parents.empty() && Parents[0].get<SubstNonTypeTemplateParmExpr>())
    return;
  KernelValueUse Use;
  if (!Parents.empty())
    if (auto *Call = Parents[0].get<CallExpr>()) {
      if (auto *Launch = dyn_cast<CUDAKernelCallExpr>(Call); Launch && Launch->getCallee() == E)
        return;
      // In a template the call may still be unresolved: its name is what it calls.
      const NamedDecl *Callee = Call->getDirectCallee();
      if (auto *Lookup = dyn_cast<UnresolvedLookupExpr>(Call->getCallee()->IgnoreImplicit());
          !Callee && Lookup && Lookup->getNumDecls())
        Callee = *Lookup->decls_begin();
      if (Callee && Callee->getIdentifier()) {
        llvm::StringRef Name = Callee->getName();
        Use.LaunchApiCall = isLaunchApi(Name);
        if (std::optional<unsigned> CallAt = writtenOffset(SM, Target, Call->getBeginLoc()))
          Use.LaunchApiAt = *CallAt;
        Use.AttributeCall = Name.starts_with("cudaFunc") || Name.starts_with("cudaOccupancy");
        const bool Wrapped = Name == "cudaGetKernel" || Name == "cudaFuncSetCacheConfig";
        if (Wrapped && Call->getNumArgs() == 2 &&
            Call->getArg(Name == "cudaGetKernel" ? 1 : 0) == E)
          renameApiCall(Call, Name, Use);
        // std::addressof(k<A>) gives the pointer back, and launches nothing.
        const bool AddressOf = Callee->getQualifiedNameAsString() == "std::addressof";
        if (!Use.AttributeCall && !Use.LaunchApiCall && !Wrapped && !AddressOf &&
            SM.isInSystemHeader(Callee->getLocation()))
          Use.LibraryCall = Callee->getQualifiedNameAsString();
      }
    }
  const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern();
  Use.Kernel = kernelIndex(canonicalKernel(Pattern ? Pattern : FD));
  Use.Offset = *At;
  Use.InDeviceCode = inDeviceCode(Ref);
  describeValue(Ref, FD, Use);
  ValueUseAt[*At] = Model.ValueUses.size();
  Model.ValueUses.push_back(Use);
}

void ModelBuilder::unroutable(KernelValueUse &Use, std::string Why) {
  Use.Value = {};
  if (Use.WhyNotRoutable.empty())
    Use.WhyNotRoutable = std::move(Why);
}

void ModelBuilder::renameApiCall(const CallExpr *Call, llvm::StringRef Name, KernelValueUse &Use) {
  const Expr *Callee = Call->getCallee()->IgnoreImplicit();
  SourceLocation Loc = Callee->getExprLoc();
  if (auto *Ref = dyn_cast<DeclRefExpr>(Callee))
    Loc = Ref->getLocation();
  else if (auto *Lookup = dyn_cast<UnresolvedLookupExpr>(Callee))
    Loc = Lookup->getNameLoc();
  if (std::optional<Span> S = tokenSpan(argumentLoc(Loc), argumentLoc(Loc))) {
    Use.ApiFunction = Name.str();
    Use.ApiName = *S;
  }
}

void ModelBuilder::describeValue(const Expr *Ref, const FunctionDecl *FD, KernelValueUse &Use) {
  bool Explicit = false, Overloaded = false, Deduced = false;
  // Template arguments left out are deduced unless their parameters have defaults, which the
  // twin's template repeats.
  if (auto *D = dyn_cast<DeclRefExpr>(Ref)) {
    const FunctionTemplateDecl *T = FD->getPrimaryTemplate();
    Explicit = D->hasExplicitTemplateArgs();
    Deduced = T && D->getNumTemplateArgs() < T->getTemplateParameters()->getMinRequiredArguments();
    Overloaded = hasOverloads(FD);
  } else if (auto *Lookup = dyn_cast<UnresolvedLookupExpr>(Ref)) {
    Explicit = Lookup->hasExplicitTemplateArgs();
    for (const NamedDecl *D : Lookup->decls())
      if (auto *T = dyn_cast<FunctionTemplateDecl>(D))
        Deduced |=
            Lookup->getNumTemplateArgs() < T->getTemplateParameters()->getMinRequiredArguments();
    Overloaded = Lookup->getNumDecls() > 1;
  }
  if (!FD->getPrimaryTemplate() && !FD->getDescribedFunctionTemplate() &&
      !isa<UnresolvedLookupExpr>(Ref))
    return; // not a template: its twin registers itself
  if (!Explicit || Deduced)
    return unroutable(Use, "its template arguments are deduced, not written");
  if (Overloaded)
    return unroutable(Use, "its name is overloaded there");
  if (FD->getTemplateSpecializationKind() == TSK_ExplicitSpecialization)
    return unroutable(Use, "it names an explicit specialization, which has no traced twin");
  if (Use.InDeviceCode)
    return unroutable(Use, "it is in device code");
  if (isCalled(Ref))
    return unroutable(Use, "it is used as a function, not as a pointer");
  // The name alone is replaced, by a reference to the same function: the operators around it
  // (`&`, parentheses, casts, std::addressof) stay as written and keep their meaning.
  SourceLocation End = splitTokenLoc(Ref->getEndLoc());
  std::optional<Span> S = tokenSpan(argumentLoc(Ref->getBeginLoc()), argumentLoc(End));
  if (S && End != Ref->getEndLoc())
    S->End = SM.getFileOffset(End) + 1; // the first '>' of `>>`
  if (!S)
    return unroutable(Use, "it is written inside a macro expansion");
  Use.Value = *S;
  Use.InMacroArgument = Ref->getBeginLoc().isMacroID();
}

bool ModelBuilder::isCalled(const Expr *Ref) const {
  const Expr *Value = Ref;
  DynTypedNodeList Parents = Ctx.getParents(*Ref);
  while (!Parents.empty() && (Parents[0].get<ParenExpr>() || Parents[0].get<ImplicitCastExpr>())) {
    Value = Parents[0].get<Expr>();
    Parents = Ctx.getParents(*Value);
  }
  auto *Call = Parents.empty() ? nullptr : Parents[0].get<CallExpr>();
  return Call && Call->getCallee() == Value;
}

void ModelBuilder::recordExplicitInstantiation(const FunctionDecl *FD) {
  const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern();
  std::optional<unsigned> At = writtenOffset(SM, Target, FD->getPointOfInstantiation());
  if (!Pattern || !At || FD->getPointOfInstantiation().isMacroID() || ValueUseAt.count(*At))
    return;
  llvm::StringRef Text =
      SM.getBufferData(SM.getFileID(SM.getFileLoc(FD->getPointOfInstantiation())));
  size_t Semi = *At;
  for (int Depth = 0; Semi < Text.size(); ++Semi) {
    char C = Text[Semi];
    Depth += (C == '(' || C == '<' || C == '[') - (C == ')' || C == '>' || C == ']');
    if (C == ';' && Depth <= 0)
      break;
  }
  if (Semi >= Text.size())
    return;
  KernelValueUse Use;
  Use.Kernel = kernelIndex(canonicalKernel(Pattern));
  Use.Offset = *At;
  Use.ExplicitInstantiation = true;
  Use.DeclEnd = static_cast<unsigned>(Semi + 1);
  std::string Args;
  llvm::raw_string_ostream OS(Args);
  if (const ASTTemplateArgumentListInfo *Written = FD->getTemplateSpecializationArgsAsWritten();
      Written && Written->getLAngleLoc().isValid()) {
    std::optional<Span> S =
        tokenSpan(SM.getFileLoc(Written->getLAngleLoc()), SM.getFileLoc(Written->getRAngleLoc()));
    if (S)
      OS << Text.substr(S->Begin, S->size());
  }
  if (Args.empty())
    printTemplateArgumentList(OS, FD->getTemplateSpecializationArgs()->asArray(),
                              Ctx.getPrintingPolicy());
  Use.TemplateArgs = Args;
  if (hasOverloads(Pattern))
    unroutable(Use, "its name is overloaded there");
  ValueUseAt[*At] = Model.ValueUses.size();
  Model.ValueUses.push_back(Use);
}

} // namespace cutrace::builder
