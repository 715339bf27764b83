// Kernels and __device__ functions: their declarations, signatures and twin spellings
// (rewriter/model/ModelBuilderVisitor.h).
#include "model/ModelBuilderVisitor.h"

#include "model/AnnotationCalls.h"
#include "model/AutoLoops.h"

#include "clang/AST/QualTypeNames.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/Support/Path.h"

namespace cutrace::builder {
using namespace clang;

void ModelBuilder::addAutoKernels(TranslationUnitDecl *TU) {
  for (AutoKernelFound &Found : autoKernelsIn(TU, Target)) {
    KernelDecl &K = Model.Kernels[kernelIndex(Found.Definition->getCanonicalDecl())];
    K.AutoCandidate = true;
    K.Loops = std::move(Found.Loops);
  }
}

bool ModelBuilder::VisitFunctionDecl(FunctionDecl *FD) {
  if (FD->getTemplateSpecializationKind() == TSK_ExplicitInstantiationDefinition &&
      FD->hasAttr<CUDAGlobalAttr>())
    recordExplicitInstantiation(FD);
  recordReaching(FD);
  if (!FD->doesThisDeclarationHaveABody() || !FD->getBody())
    return true;
  SourceRange Body = FD->getBody()->getSourceRange();
  std::optional<unsigned> Begin = writtenOffset(SM, Target, Body.getBegin());
  std::optional<unsigned> End = writtenOffset(SM, Target, Body.getEnd());
  if (Begin && End && *Begin < *End)
    Model.FunctionBodies.push_back({*Begin, endOfToken(Body.getEnd())});
  return true;
}

std::string ModelBuilder::paramTypes(const FunctionDecl *FD, const ASTContext &Ctx,
                                     bool Qualified) {
  PrintingPolicy Policy(Ctx.getLangOpts());
  Policy.SuppressUnwrittenScope = true;
  std::string Out;
  for (const ParmVarDecl *P : FD->parameters()) {
    QualType T = P->getType();
    Out += (Out.empty() ? "" : ", ") +
           (Qualified ? TypeName::getFullyQualifiedName(T.getCanonicalType(), Ctx, Policy, true)
                      : T.getAsString(Policy));
  }
  return Out;
}

bool ModelBuilder::hasOverloads(const FunctionDecl *FD) {
  unsigned N = 0;
  for (const NamedDecl *D : FD->getDeclContext()->getRedeclContext()->lookup(FD->getDeclName()))
    N += isa<FunctionDecl, FunctionTemplateDecl>(D->getUnderlyingDecl());
  return N > 1;
}

int ModelBuilder::kernelIndex(const FunctionDecl *Canonical) {
  auto [It, Inserted] = KernelIds.try_emplace(Canonical, Model.Kernels.size());
  if (!Inserted)
    return It->second;
  Model.Kernels.push_back(describeFunction(Canonical));
  return It->second;
}

int ModelBuilder::helperIndex(const FunctionDecl *Canonical) {
  auto [It, Inserted] = HelperIds.try_emplace(Canonical, Model.Helpers.size());
  if (!Inserted)
    return It->second;
  Model.Helpers.push_back(describeFunction(Canonical));
  return It->second;
}

void ModelBuilder::recordReaching(const FunctionDecl *FD) {
  if (FD->isTemplateInstantiation() || !writtenOffset(SM, Target, FD->getLocation()))
    return;
  const FunctionDecl *Canonical = patternOf(FD), *Definition = nullptr;
  if (!Calls.Reaching.contains(Canonical))
    return;
  if (FD->hasAttr<CUDAGlobalAttr>()) {
    // A kernel defined here is known from its annotations, calls and launches.
    if (!FD->doesThisDeclarationHaveABody())
      kernelIndex(Canonical);
    return;
  }
  if (!FD->hasAttr<CUDADeviceAttr>() || !unroutable(FD).empty())
    return;
  int H = helperIndex(Canonical);
  if (Canonical->isDefined(Definition) && Definition->getBody() &&
      !writtenOffset(SM, Target, Definition->getLocation()))
    describeDefinitionElsewhere(Definition, Model.Helpers[H]);
}

void ModelBuilder::describeDefinitionElsewhere(const FunctionDecl *Definition,
                                               KernelDecl &Helper) const {
  if (!Helper.DefinedIn.empty())
    return;
  SourceLocation Brace = SM.getFileLoc(Definition->getBody()->getBeginLoc());
  if (const FileEntry *File = SM.getFileEntryForID(SM.getFileID(Brace))) {
    Helper.DefinedIn = File->tryGetRealPathName().str();
    Helper.DefinedLine = SM.getSpellingLineNumber(Brace);
  }
}

/// Whether this parse holds no instance of F, or of the class F is a member of: F a function
/// template, or a member of a class template or of one of its partial specializations.
static bool neverInstantiated(const FunctionDecl *F) {
  if (const FunctionTemplateDecl *T = F->getDescribedFunctionTemplate())
    if (!T->getCanonicalDecl()->specializations().empty())
      return false;
  const DeclContext *DC = F->getDeclContext();
  if (const auto *Partial = dyn_cast<ClassTemplatePartialSpecializationDecl>(DC)) {
    for (const ClassTemplateSpecializationDecl *S :
         Partial->getSpecializedTemplate()->specializations())
      if (const auto *From = S->getSpecializedTemplateOrPartial()
                                 .dyn_cast<ClassTemplatePartialSpecializationDecl *>())
        if (From->getCanonicalDecl() == Partial->getCanonicalDecl())
          return false;
    return true;
  }
  if (const auto *Record = dyn_cast<CXXRecordDecl>(DC))
    if (const ClassTemplateDecl *T = Record->getDescribedClassTemplate()) {
      for (const ClassTemplateSpecializationDecl *S : T->specializations())
        if (S->getSpecializedTemplateOrPartial().is<ClassTemplateDecl *>() &&
            S->getTemplateSpecializationKind() != TSK_Undeclared)
          return false;
      return true;
    }
  return F->getDescribedFunctionTemplate() != nullptr;
}

KernelDecl ModelBuilder::describeFunction(const FunctionDecl *Canonical) {
  KernelDecl K;
  K.Name = Canonical->getNameAsString();
  K.QualifiedName = Canonical->getQualifiedNameAsString();
  K.IsTemplate = Canonical->getDescribedFunctionTemplate() != nullptr;
  K.ParamTypes = paramTypes(Canonical, Ctx, false);
  if (!Canonical->isTemplated()) // only a non-template kernel is ever cast to one overload
    K.ParamTypesQualified = paramTypes(Canonical, Ctx, true);
  K.Overloaded = hasOverloads(Canonical);
  K.IsExplicitSpecialization =
      Canonical->getTemplateSpecializationKind() == TSK_ExplicitSpecialization;
  if (const FunctionTemplateDecl *T = Canonical->getDescribedFunctionTemplate())
    K.Instantiated = !T->getCanonicalDecl()->specializations().empty();
  K.NeverInstantiated = Canonical->isTemplated() && neverInstantiated(Canonical);
  for (const ParmVarDecl *P : Canonical->parameters())
    K.HasParameterPack |= P->isParameterPack();
  std::vector<const FunctionDecl *> Decls;
  if (const FunctionTemplateDecl *T = Canonical->getDescribedFunctionTemplate())
    for (const RedeclarableTemplateDecl *R : T->redecls())
      Decls.push_back(cast<FunctionTemplateDecl>(R)->getTemplatedDecl());
  else
    for (const FunctionDecl *R : Canonical->redecls())
      Decls.push_back(R);
  std::sort(Decls.begin(), Decls.end(), [&](const FunctionDecl *A, const FunctionDecl *B) {
    return SM.isBeforeInTranslationUnit(A->getBeginLoc(), B->getBeginLoc());
  });
  K.NumParams = Canonical->getNumParams();
  K.IsMember = isa<CXXMethodDecl>(Canonical);
  // Clang makes constexpr functions __host__ __device__ implicitly: those keep their spelling.
  const auto *Host = Canonical->getAttr<CUDAHostAttr>();
  K.HostDevice = Host && !Host->isImplicit() && Canonical->hasAttr<CUDADeviceAttr>();
  const FunctionDecl *Definition = nullptr;
  K.DefinitionVisible = Canonical->isDefined(Definition);
  K.Signature = signatureOf(Canonical, Definition, K.ParamTypes);
  for (const FunctionDecl *R : Decls) {
    FunctionTypeLoc TL = R->getFunctionTypeLoc();
    std::optional<unsigned> RParen =
        TL ? writtenOffset(SM, Target, TL.getRParenLoc()) : std::nullopt;
    if (!RParen)
      continue;
    KernelDeclSite Site;
    Site.PrecededElsewhere = Calls.Reaching.contains(Canonical) &&
                             !writtenOffset(SM, Target, Decls.front()->getLocation());
    Site.ParamEnd = *RParen;
    Site.ParamBegin = writtenOffset(SM, Target, TL.getLParenLoc()).value_or(0);
    Site.HasParams = R->getNumParams() > 0;
    Site.IsDefinition = R->doesThisDeclarationHaveABody();
    const Decl *Outer = R;
    if (const FunctionTemplateDecl *T = R->getDescribedFunctionTemplate())
      Outer = T;
    SourceLocation Begin = Outer->getBeginLoc(), End = Outer->getEndLoc();
    // Out of class, the enclosing classes' template headers come first.
    if (R->getNumTemplateParameterLists())
      Begin = R->getTemplateParameterList(0)->getTemplateLoc();
    // A name, a parenthesis or the end a macro writes leaves no text to copy or edit.
    Site.InMacro = R->getLocation().isMacroID() || End.isMacroID() ||
                   TL.getLParenLoc().isMacroID() || TL.getRParenLoc().isMacroID();
    std::optional<unsigned> B = writtenOffset(SM, Target, Begin),
                            E = writtenOffset(SM, Target, End);
    std::optional<unsigned> N = writtenOffset(SM, Target, R->getLocation());
    if (N)
      Site.Name = *N;
    if (B && E && N)
      Site.Range = {*B, endOfToken(End)};
    else
      Site.InMacro = true;
    if (Site.IsDefinition) {
      SourceRange Body = R->getBody()->getSourceRange();
      K.Body = {SM.getFileOffset(SM.getFileLoc(Body.getBegin())), endOfToken(Body.getEnd())};
    }
    if (const FunctionTemplateDecl *T = R->getDescribedFunctionTemplate())
      if (std::optional<unsigned> RAngle =
              writtenOffset(SM, Target, T->getTemplateParameters()->getRAngleLoc()))
        Site.TemplateParamsEnd = *RAngle;
    if (unsigned Outer = R->getNumTemplateParameterLists())
      if (std::optional<unsigned> RAngle =
              writtenOffset(SM, Target, R->getTemplateParameterList(Outer - 1)->getRAngleLoc()))
        Site.OuterTemplateParamsEnd = *RAngle + 1;
    if (std::optional<Span> Name =
            writtenSpan(R->getNameInfo().getBeginLoc(), R->getNameInfo().getEndLoc()))
      Site.NameEnd = Name->End;
    if (NestedNameSpecifierLoc Q = R->getQualifierLoc())
      if (std::optional<Span> QS = writtenSpan(Q.getBeginLoc(), Q.getEndLoc()))
        Site.WrittenQualifier =
            SM.getBufferData(SM.getFileID(Q.getBeginLoc())).substr(QS->Begin, QS->size()).str();
    if (K.HostDevice && !describeHostSpelling(R, Site) && !K.HostSpellingUnknownAt)
      K.HostSpellingUnknownAt = Site.Name;
    K.Decls.push_back(Site);
  }
  return K;
}

std::string ModelBuilder::signatureOf(const FunctionDecl *Canonical, const FunctionDecl *Definition,
                                      const std::string &ParamTypes) const {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  if (const FunctionTemplateDecl *T = Canonical->getDescribedFunctionTemplate())
    T->getTemplateParameters()->print(OS, Ctx);
  OS << "(" << ParamTypes << ")";
  if (Definition && Definition->getBody()) {
    SourceLocation Brace = SM.getExpansionLoc(Definition->getBody()->getBeginLoc());
    if (const FileEntry *File = SM.getFileEntryForID(SM.getFileID(Brace)))
      OS << " " << llvm::sys::path::filename(File->tryGetRealPathName());
    OS << ":" << SM.getExpansionLineNumber(Brace) << ":" << SM.getExpansionColumnNumber(Brace);
  }
  return Out;
}

bool ModelBuilder::describeHostSpelling(const FunctionDecl *R, KernelDeclSite &Site) {
  const auto *Host = R->getAttr<CUDAHostAttr>();
  if (!Host || Host->isImplicit() || !Host->getLocation().isMacroID())
    return false;
  SourceLocation Token = SM.getExpansionLoc(Host->getLocation());
  std::optional<unsigned> At = writtenOffset(SM, Target, Token);
  if (!At)
    return false;
  unsigned End = endOfToken(Token);
  std::string Name = SM.getBufferData(SM.getFileID(Token)).substr(*At, End - *At).str();
  std::optional<std::string> DeviceOnly = withoutHost(Name, 0);
  if (!DeviceOnly)
    return false;
  Site.HostSpelling = {*At, End};
  Site.DeviceOnlySpelling = *DeviceOnly;
  return true;
}

std::optional<std::string> ModelBuilder::withoutHost(const std::string &Name,
                                                     unsigned Depth) const {
  if (Name == "__host__")
    return "";
  const IdentifierInfo *Id = PP.getIdentifierInfo(Name);
  const MacroInfo *Macro = Id ? PP.getMacroInfo(Id) : nullptr;
  if (!Macro || Depth > 8)
    return std::nullopt;
  if (Macro->isFunctionLike())
    return std::nullopt;
  std::string Out;
  bool Changed = false;
  for (const Token &T : Macro->tokens()) {
    std::string Spelled = PP.getSpelling(T);
    std::optional<std::string> Inner;
    if (T.is(tok::identifier) || T.getIdentifierInfo())
      Inner = withoutHost(Spelled, Depth + 1);
    Changed |= Inner.has_value();
    std::string Piece = Inner ? *Inner : Spelled;
    if (!Piece.empty())
      Out += (Out.empty() ? "" : " ") + Piece;
  }
  if (!Changed)
    return std::nullopt;
  return Out;
}

std::string ModelBuilder::unroutable(const FunctionDecl *FD) {
  if (isa<CXXConstructorDecl>(FD))
    return "a constructor";
  if (isa<CXXDestructorDecl>(FD))
    return "a destructor";
  if (isa<CXXConversionDecl>(FD))
    return "a conversion function";
  OverloadedOperatorKind Op = FD->getOverloadedOperator();
  if (Op != OO_None && Op != OO_Call)
    return "'" + FD->getNameAsString() + "'";
  return "";
}

} // namespace cutrace::builder
