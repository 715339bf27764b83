// Launch sites: `k<<<...>>>` and calls of the CUDA launch API, where their callee and
// configuration are written and which kernel they launch (rewriter/model/ModelBuilderVisitor.h).
#include "model/ModelBuilderVisitor.h"

#include "model/AnnotationCalls.h"

#include "clang/Lex/Lexer.h"

namespace cutrace::builder {
using namespace clang;

bool ModelBuilder::VisitCUDAKernelCallExpr(CUDAKernelCallExpr *Call) {
  const Expr *CalleeExpr = Call->getCallee();
  const FunctionDecl *Kernel = kernelOf(CalleeExpr);
  LaunchSite Site;
  SourceLocation Begin = Call->getBeginLoc();
  Site.InMacro = Begin.isMacroID() || Call->getRParenLoc().isMacroID();
  std::optional<unsigned> Offset = writtenOffset(SM, Target, Begin);
  // Launches from device code (dynamic parallelism) stay as they are: the runtime is host-only.
  if (!Offset || inDeviceCode(Call) || !SeenLaunches.insert(*Offset).second)
    return true;
  Site.Kernel = Kernel ? kernelIndex(Kernel) : -1;
  Site.Offset = *Offset;
  Site.ArgsEnd = SM.getFileOffset(SM.getFileLoc(Call->getRParenLoc()));
  describeCallee(CalleeExpr, Site);
  for (const Expr *Arg : Call->arguments()) {
    if (auto *Default = dyn_cast<CXXDefaultArgExpr>(Arg)) {
      Site.OmitsDefaultedArgs = true;
      Site.DefaultArgs.push_back(spelled(Default->getParam()->getDefaultArgRange()));
    } else {
      Site.HasWrittenArgs = true;
    }
  }
  if (const CallExpr *Config = Call->getConfig()) {
    auto Text = [&](unsigned I, const char *Default) -> std::string {
      if (I >= Config->getNumArgs() || isa<CXXDefaultArgExpr>(Config->getArg(I)))
        return Default;
      const Expr *E = Config->getArg(I);
      if (I < 2 && Effects.find(E))
        Site.ConfigHasSideEffects = true;
      return spelled(E->getSourceRange());
    };
    Site.Grid = Text(0, "1");
    Site.Block = Text(1, "1");
    Site.Shmem = Text(2, "0");
    Site.Stream = Text(3, "0");
    // The configuration call ends at `>>>`.
    if (std::optional<unsigned> GGG = writtenOffset(SM, Target, Config->getRParenLoc()))
      Site.ConfigEnd = *GGG + 3;
    if (Site.InMacro && !describeInArgument(Call, Site))
      describeMacroBody(CalleeExpr, Config, Site);
  }
  Model.Launches.push_back(std::move(Site));
  return true;
}

bool ModelBuilder::describeInArgument(const CUDAKernelCallExpr *Call, LaunchSite &Site) {
  const CallExpr *Config = Call->getConfig();
  const Expr *Callee = Call->getCallee()->IgnoreImplicit();
  std::optional<Span> C = argumentSpan(Callee->getSourceRange());
  SourceLocation GGG = argumentLoc(Config->getRParenLoc());
  SourceLocation RParen = argumentLoc(Call->getRParenLoc());
  if (!C || GGG.isInvalid() || RParen.isInvalid())
    return false;
  llvm::StringRef Text = SM.getBufferData(SM.getFileID(GGG));
  std::string Args[4] = {"1", "1", "0", "0"};
  for (unsigned I = 0; I < 4 && I < Config->getNumArgs(); ++I) {
    if (isa<CXXDefaultArgExpr>(Config->getArg(I)))
      continue;
    std::optional<Span> A = argumentSpan(Config->getArg(I)->getSourceRange());
    if (!A)
      return false;
    Args[I] = Text.substr(A->Begin, A->size()).str();
  }
  const Expr *Named = Callee->IgnoreParenImpCasts();
  SourceLocation Name =
      isa<DeclRefExpr>(Named) ? cast<DeclRefExpr>(Named)->getLocation() : Named->getBeginLoc();
  SourceLocation NameAt = argumentLoc(Name);
  Site.Callee = *C;
  Site.CalleeName = NameAt.isValid() ? SM.getFileOffset(NameAt) : 0;
  Site.ConfigEnd = SM.getFileOffset(GGG) + 3;
  Site.ArgsEnd = SM.getFileOffset(RParen);
  Site.Grid = Args[0];
  Site.Block = Args[1];
  Site.Shmem = Args[2];
  Site.Stream = Args[3];
  Site.InMacro = false;
  return true;
}

void ModelBuilder::describeMacroBody(const Expr *Callee, const CallExpr *Config, LaunchSite &Site) {
  std::optional<Span> C = bodySpan(Callee->IgnoreImplicit()->getSourceRange());
  SourceLocation GGG = bodyLoc(Config->getRParenLoc());
  if (!C || GGG.isInvalid())
    return;
  FileID File = SM.getFileID(GGG);
  llvm::StringRef Text = SM.getBufferData(File);
  auto Arg = [&](unsigned I, const char *Default) -> std::optional<std::string> {
    if (I >= Config->getNumArgs() || isa<CXXDefaultArgExpr>(Config->getArg(I)))
      return Default;
    std::optional<Span> A = bodySpan(Config->getArg(I)->getSourceRange());
    if (!A)
      return std::nullopt;
    return Text.substr(A->Begin, A->size()).str();
  };
  std::optional<std::string> G = Arg(0, "1"), B = Arg(1, "1"), S = Arg(2, "0"), St = Arg(3, "0");
  if (!G || !B || !S || !St)
    return;
  Site.Body.Callee = *C;
  Site.Body.ConfigEnd = SM.getFileOffset(GGG) + 3;
  Site.Body.Grid = *G;
  Site.Body.Block = *B;
  Site.Body.Shmem = *S;
  Site.Body.Stream = *St;
}

const FunctionDecl *ModelBuilder::kernelOf(const Expr *Callee) {
  Callee = Callee->IgnoreParenImpCasts();
  if (auto *Unary = dyn_cast<UnaryOperator>(Callee); Unary && Unary->getOpcode() == UO_AddrOf)
    Callee = Unary->getSubExpr()->IgnoreParenImpCasts();
  const FunctionDecl *FD = nullptr;
  if (auto *Ref = dyn_cast<DeclRefExpr>(Callee))
    FD = dyn_cast<FunctionDecl>(Ref->getDecl());
  else if (auto *Lookup = dyn_cast<UnresolvedLookupExpr>(Callee))
    for (const NamedDecl *D : Lookup->decls()) {
      if (auto *Template = dyn_cast<FunctionTemplateDecl>(D))
        FD = Template->getTemplatedDecl();
      else if (!FD)
        FD = dyn_cast<FunctionDecl>(D);
    }
  if (!FD || !FD->hasAttr<CUDAGlobalAttr>())
    return nullptr;
  return canonicalKernel(FD);
}

const FunctionDecl *ModelBuilder::canonicalKernel(const FunctionDecl *FD) {
  if (const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern())
    FD = Pattern;
  if (const FunctionTemplateDecl *Primary = FD->getPrimaryTemplate())
    FD = Primary->getTemplatedDecl();
  return FD->getCanonicalDecl();
}

bool ModelBuilder::isLaunchApi(llvm::StringRef Name) {
  return Name == "cudaLaunchKernel" || Name == "cudaLaunchKernelEx" ||
         Name == "cudaLaunchKernelExC" || Name == "cudaLaunchCooperativeKernel";
}

void ModelBuilder::describeCallee(const Expr *Callee, LaunchSite &Site) {
  Callee = Callee->IgnoreImplicit();
  std::optional<unsigned> B = writtenOffset(SM, Target, Callee->getBeginLoc());
  std::optional<unsigned> E = writtenOffset(SM, Target, Callee->getEndLoc());
  if (!B || !E)
    return;
  unsigned EndTok =
      *E + Lexer::MeasureTokenLength(SM.getFileLoc(Callee->getEndLoc()), SM, Ctx.getLangOpts());
  Site.Callee = {*B, EndTok};
  const Expr *Named = Callee->IgnoreParenImpCasts();
  if (auto *Unary = dyn_cast<UnaryOperator>(Named); Unary && Unary->getOpcode() == UO_AddrOf)
    Named = Unary->getSubExpr()->IgnoreParenImpCasts();
  if (auto *Ref = dyn_cast<DeclRefExpr>(Named)) {
    if (std::optional<unsigned> N = writtenOffset(SM, Target, Ref->getLocation()))
      Site.CalleeName = *N;
    if (auto *FD = dyn_cast<FunctionDecl>(Ref->getDecl())) {
      // `k<true>` of a template with more parameters deduces the rest from the arguments:
      // it names no single function whose address could be taken.
      const TemplateArgumentList *All = FD->getTemplateSpecializationArgs();
      Site.DeducedTemplate =
          FD->getPrimaryTemplate() &&
          (!Ref->hasExplicitTemplateArgs() || (All && Ref->getNumTemplateArgs() < All->size()));
      Site.OverloadedName = hasOverloads(FD);
      Site.ExplicitSpecialization =
          FD->getTemplateSpecializationKind() == TSK_ExplicitSpecialization;
    }
  } else if (auto *Lookup = dyn_cast<UnresolvedLookupExpr>(Named)) {
    if (std::optional<unsigned> N = writtenOffset(SM, Target, Lookup->getNameLoc()))
      Site.CalleeName = *N;
    Site.DeducedTemplate = !Lookup->hasExplicitTemplateArgs();
    for (const NamedDecl *D : Lookup->decls())
      if (auto *T = dyn_cast<FunctionTemplateDecl>(D))
        Site.DeducedTemplate |= Lookup->getNumTemplateArgs() < T->getTemplateParameters()->size();
    Site.OverloadedName = Lookup->getNumDecls() > 1;
  }
}

void ModelBuilder::recordLaunchApiCall(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || !Callee->getIdentifier() || !isLaunchApi(Callee->getName()))
    return;
  std::optional<unsigned> At = writtenOffset(SM, Target, Call->getBeginLoc());
  if (!At || inDeviceCode(Call) || !SeenLaunches.insert(*At).second)
    return;
  LaunchSite Site;
  Site.Offset = *At;
  Site.ViaLaunchApi = true;
  Site.ApiFunction = Callee->getName().str();
  Site.InMacro = Call->getBeginLoc().isMacroID();
  const Expr *Name = Call->getCallee()->IgnoreParenImpCasts();
  // The whole name, a `::` qualifier included, is what gets replaced, where it is written: in
  // the file, or in the argument of a macro (`CHECK(cudaLaunchKernelEx(...))`).
  if (auto *Ref = dyn_cast<DeclRefExpr>(Name)) {
    SourceLocation B = argumentLoc(Ref->getBeginLoc()), N = argumentLoc(Ref->getLocation());
    if (B.isValid() && N.isValid()) {
      Site.ApiName = {SM.getFileOffset(B),
                      SM.getFileOffset(N) + static_cast<unsigned>(Site.ApiFunction.size())};
      Site.InMacro = false;
    }
  }
  for (const Expr *Arg : Call->arguments()) {
    const Expr *E = Arg->IgnoreParenImpCasts();
    while (auto *Cast = dyn_cast<ExplicitCastExpr>(E))
      E = Cast->getSubExpr()->IgnoreParenImpCasts();
    if (const FunctionDecl *Kernel = kernelOf(E)) {
      Site.Kernel = kernelIndex(Kernel);
      break;
    }
  }
  Model.Launches.push_back(std::move(Site));
}

} // namespace cutrace::builder
