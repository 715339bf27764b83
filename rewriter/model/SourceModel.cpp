#include "model/ModelBuilder.h"

#include "lex/AnnotationScanner.h"
#include "model/AnnotationCalls.h"
#include "model/AutoLoops.h"
#include "model/SampledStatement.h"
#include "model/SideEffects.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ASTLambda.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/QualTypeNames.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Path.h"
#include <set>

namespace cutrace {
namespace {
using namespace clang;

class ModelBuilder : public RecursiveASTVisitor<ModelBuilder> {
public:
  ModelBuilder(ASTContext &Ctx, const Preprocessor &PP, SourceModel &Model, const FileEntry *Target,
               const CallFacts &Calls)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), PP(PP), Model(Model), Target(Target), Calls(Calls),
        Effects(Ctx) {}

  bool shouldVisitTemplateInstantiations() const { return true; }

  /// --auto: every kernel defined in the file, with its outermost loops (rewriter/model/AutoLoops.h).
  void addAutoKernels(TranslationUnitDecl *TU) {
    for (AutoKernelFound &Found : autoKernelsIn(TU, Target)) {
      KernelDecl &K = Model.Kernels[kernelIndex(Found.Definition->getCanonicalDecl())];
      K.AutoCandidate = true;
      K.Loops = std::move(Found.Loops);
    }
  }

  bool VisitCallExpr(CallExpr *Call) {
    if (auto Kind = annotationCallKind(Call))
      recordUse(Call, *Kind);
    else {
      recordLaunchApiCall(Call);
      recordHelperCall(Call);
      recordDependentCall(Call);
    }
    return true;
  }

  /// The model of the translation unit's code written in the file.
  void build(TranslationUnitDecl *TU) {
    TraverseDecl(TU);
    // Instantiations resolve the calls their pattern left dependent.
    for (HelperCall &C : Model.HelperCalls)
      C.Dispatch = DependentCalls.count(C.RParen) > 0;
  }

  /// Bodies are kept so that a Clang error in a function holding an annotation Clang could not
  /// make a call of is still known to be inside an annotated function (rewriter/strip/Verify.cpp).
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (FD->getTemplateSpecializationKind() == TSK_ExplicitInstantiationDefinition &&
        FD->hasAttr<CUDAGlobalAttr>())
      recordExplicitInstantiation(FD);
    if (!FD->doesThisDeclarationHaveABody())
      recordDeclaration(FD);
    if (!FD->doesThisDeclarationHaveABody() || !FD->getBody())
      return true;
    SourceRange Body = FD->getBody()->getSourceRange();
    std::optional<unsigned> Begin = writtenOffset(SM, Target, Body.getBegin());
    std::optional<unsigned> End = writtenOffset(SM, Target, Body.getEnd());
    if (Begin && End && *Begin < *End)
      Model.FunctionBodies.push_back({*Begin, endOfToken(Body.getEnd())});
    return true;
  }

  bool VisitGotoStmt(GotoStmt *Goto) {
    if (const LabelStmt *Label = Goto->getLabel()->getStmt())
      recordJump(Goto->getGotoLoc(), Label->getBeginLoc(), false);
    return true;
  }

  bool VisitSwitchStmt(SwitchStmt *Switch) {
    for (const SwitchCase *C = Switch->getSwitchCaseList(); C; C = C->getNextSwitchCase())
      recordJump(Switch->getSwitchLoc(), C->getBeginLoc(), true);
    return true;
  }

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *Call) {
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

  /// True inside a function compiled for the device (__device__, __global__, __host__ __device__).
  bool inDeviceCode(const Stmt *S) {
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

  /// Where a macro's body (defined in this file) writes Loc: a macro argument maps to the
  /// parameter that receives it.
  SourceLocation bodyLoc(SourceLocation Loc) const {
    while (Loc.isMacroID())
      Loc = SM.isMacroArgExpansion(Loc) ? SM.getImmediateExpansionRange(Loc).getBegin()
                                        : SM.getImmediateSpellingLoc(Loc);
    return SM.getFileEntryForID(SM.getFileID(Loc)) == Target ? Loc : SourceLocation();
  }

  std::optional<Span> bodySpan(SourceRange R) const {
    return tokenSpan(bodyLoc(R.getBegin()), bodyLoc(R.getEnd()));
  }

  /// The bytes from token B through token E, when both are written in one file.
  std::optional<Span> tokenSpan(SourceLocation B, SourceLocation E) const {
    if (B.isInvalid() || E.isInvalid() || SM.getFileID(B) != SM.getFileID(E))
      return std::nullopt;
    unsigned End = SM.getFileOffset(E) + Lexer::MeasureTokenLength(E, SM, Ctx.getLangOpts());
    if (End <= SM.getFileOffset(B))
      return std::nullopt;
    return Span{SM.getFileOffset(B), End};
  }

  /// Where the invocation of a macro writes Loc, when Loc comes from one of its arguments.
  SourceLocation argumentLoc(SourceLocation Loc) const {
    if (!Loc.isMacroID() || !SM.isMacroArgExpansion(Loc))
      return Loc.isFileID() ? Loc : SourceLocation();
    SourceLocation Spelled = SM.getSpellingLoc(Loc);
    return SM.getFileEntryForID(SM.getFileID(Spelled)) == Target ? Spelled : SourceLocation();
  }

  std::optional<Span> argumentSpan(SourceRange R) const {
    return tokenSpan(argumentLoc(R.getBegin()), argumentLoc(R.getEnd()));
  }

  /// A launch written whole inside a macro's argument (`CHECK(k<<<g, b>>>(x))`) is edited where
  /// the argument is written, like a launch outside any macro.
  bool describeInArgument(const CUDAKernelCallExpr *Call, LaunchSite &Site) {
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

  void describeMacroBody(const Expr *Callee, const CallExpr *Config, LaunchSite &Site) {
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

  /// A kernel named other than as the callee of a launch: its pointer may be launched anywhere.
  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    if (auto *FD = dyn_cast<FunctionDecl>(Ref->getDecl()); FD && FD->hasAttr<CUDAGlobalAttr>())
      recordValueUse(Ref, FD, Ref->getLocation());
    return true;
  }

  /// `k<4>` where the kernel's overloads are still unresolved in the syntactic form.
  bool VisitUnresolvedLookupExpr(UnresolvedLookupExpr *Lookup) {
    for (const NamedDecl *D : Lookup->decls())
      if (auto *T = dyn_cast<FunctionTemplateDecl>(D);
          T && T->getTemplatedDecl()->hasAttr<CUDAGlobalAttr>()) {
        recordValueUse(Lookup, T->getTemplatedDecl(), Lookup->getNameLoc());
        break;
      }
    return true;
  }

private:
  void recordValueUse(const Expr *Ref, const FunctionDecl *FD, SourceLocation NameLoc) {
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

  static void unroutable(KernelValueUse &Use, std::string Why) {
    Use.Value = {};
    if (Use.WhyNotRoutable.empty())
      Use.WhyNotRoutable = std::move(Why);
  }

  /// The name token of the call's function, where the file writes it.
  void renameApiCall(const CallExpr *Call, llvm::StringRef Name, KernelValueUse &Use) {
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

  /// The span a traced build replaces by the registering form of the same pointer: the reference
  /// with its `&`, or the reference that decays to a pointer; and why not, when it cannot.
  void describeValue(const Expr *Ref, const FunctionDecl *FD, KernelValueUse &Use) {
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
          Deduced |= Lookup->getNumTemplateArgs() <
                     T->getTemplateParameters()->getMinRequiredArguments();
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

  /// The callee of a call, through parentheses (a kernel called from device code).
  bool isCalled(const Expr *Ref) const {
    const Expr *Value = Ref;
    DynTypedNodeList Parents = Ctx.getParents(*Ref);
    while (!Parents.empty() && (Parents[0].get<ParenExpr>() || Parents[0].get<ImplicitCastExpr>())) {
      Value = Parents[0].get<Expr>();
      Parents = Ctx.getParents(*Value);
    }
    auto *Call = Parents.empty() ? nullptr : Parents[0].get<CallExpr>();
    return Call && Call->getCallee() == Value;
  }

  /// The `>` that closes a template argument list written as the first half of `>>`: Clang
  /// names it by a location of its own, expanded from that character of the file.
  SourceLocation splitTokenLoc(SourceLocation Loc) const {
    if (!Loc.isMacroID())
      return Loc;
    CharSourceRange R = SM.getImmediateExpansionRange(Loc);
    if (R.isTokenRange() || !R.getBegin().isFileID() || SM.getCharacterData(R.getBegin())[0] != '>')
      return Loc;
    return R.getBegin();
  }

  /// `template __global__ void k<float>(float *);`: the instance is registered where it is made.
  void recordExplicitInstantiation(const FunctionDecl *FD) {
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

  ASTContext &Ctx;
  const SourceManager &SM;
  const Preprocessor &PP; // macro definitions, for the spelling of device-only twins
  SourceModel &Model;
  const FileEntry *Target; // the file the model describes
  const CallFacts &Calls;  // the translation unit's: which functions reach annotations
  SideEffectJudge Effects; // rewriter/model/SideEffects.h: what payloads, leads and conditions may call
  llvm::DenseMap<const FunctionDecl *, int> KernelIds;
  llvm::DenseSet<unsigned> SeenLaunches;
  std::set<std::pair<unsigned, int>> SeenHelperCalls; // (')' of the call, helper)
  std::set<unsigned> DependentCalls;                  // ')' of pattern calls on dependent objects
  llvm::DenseMap<unsigned, size_t> ValueUseAt; // name offset -> index in Model.ValueUses
  std::set<std::pair<unsigned, unsigned>> SeenJumps;
  llvm::DenseMap<const FunctionDecl *, int> HelperIds;
  llvm::DenseMap<unsigned, size_t> UseAt; // macro offset -> index in Model.Uses

  /// Just past the token at Loc, where it is written (a digraph brace is two characters).
  unsigned endOfToken(SourceLocation Loc) const {
    SourceLocation File = SM.getFileLoc(Loc);
    return SM.getFileOffset(File) + Lexer::MeasureTokenLength(File, SM, Ctx.getLangOpts());
  }

  void recordJump(SourceLocation From, SourceLocation To, bool IsCase) {
    std::optional<unsigned> F = writtenOffset(SM, Target, From), T = writtenOffset(SM, Target, To);
    // Instantiations repeat their pattern's jumps.
    if (F && T && SeenJumps.insert({*F, *T}).second)
      Model.Jumps.push_back({*F, *T, IsCase});
  }

  /// A kernel's parameter types as its first declaration writes them (with its name, its
  /// identity), or canonical and fully qualified (valid C++ anywhere in its scope).
  static std::string paramTypes(const FunctionDecl *FD, const ASTContext &Ctx, bool Qualified) {
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

  /// The kernel a callee expression names, as its template pattern's first declaration.
  const FunctionDecl *kernelOf(const Expr *Callee) {
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

  static const FunctionDecl *canonicalKernel(const FunctionDecl *FD) {
    if (const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern())
      FD = Pattern;
    if (const FunctionTemplateDecl *Primary = FD->getPrimaryTemplate())
      FD = Primary->getTemplatedDecl();
    return FD->getCanonicalDecl();
  }

  std::string spelled(SourceRange R) const {
    return Lexer::getSourceText(SM.getExpansionRange(R), SM, Ctx.getLangOpts()).str();
  }

  static bool isLaunchApi(llvm::StringRef Name) {
    return Name == "cudaLaunchKernel" || Name == "cudaLaunchKernelEx" ||
           Name == "cudaLaunchKernelExC" || Name == "cudaLaunchCooperativeKernel";
  }

  /// Where the callee of a launch is written and how it names its kernel.
  void describeCallee(const Expr *Callee, LaunchSite &Site) {
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

  static bool hasOverloads(const FunctionDecl *FD) {
    unsigned N = 0;
    for (const NamedDecl *D : FD->getDeclContext()->getRedeclContext()->lookup(FD->getDeclName()))
      N += isa<FunctionDecl, FunctionTemplateDecl>(D->getUnderlyingDecl());
    return N > 1;
  }

  int kernelIndex(const FunctionDecl *Canonical) {
    auto [It, Inserted] = KernelIds.try_emplace(Canonical, Model.Kernels.size());
    if (!Inserted)
      return It->second;
    Model.Kernels.push_back(describeFunction(Canonical));
    return It->second;
  }

  int helperIndex(const FunctionDecl *Canonical) {
    auto [It, Inserted] = HelperIds.try_emplace(Canonical, Model.Helpers.size());
    if (!Inserted)
      return It->second;
    Model.Helpers.push_back(describeFunction(Canonical));
    return It->second;
  }

  /// The function a call or an annotation belongs to, as the template's pattern when it is an
  /// instantiation.
  static const FunctionDecl *patternOf(const FunctionDecl *FD) {
    const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern();
    return (Pattern ? Pattern : FD)->getCanonicalDecl();
  }

  /// A call of a __device__ function or member defined in the main file, from device code
  /// written there: the traced build sends it to the function's twin when the function reaches
  /// an annotation.
  void recordHelperCall(const CallExpr *Call) {
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

  /// A declaration written here of a kernel or __device__ function that reaches annotations: the
  /// twin gets a declaration beside it, wherever the definition is (a forward declaration in
  /// one header, the annotated definition in a later one).
  void recordDeclaration(const FunctionDecl *FD) {
    if (FD->isTemplateInstantiation() || !writtenOffset(SM, Target, FD->getLocation()))
      return;
    const FunctionDecl *Canonical = patternOf(FD), *Definition = nullptr;
    if (!Calls.Reaching.contains(Canonical))
      return;
    if (FD->hasAttr<CUDAGlobalAttr>()) {
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

  /// A callee defined in another file: which file, and the line of its body's '{', which name
  /// its twin's sites there (`<name>_<line>`).
  void describeDefinitionElsewhere(const FunctionDecl *Definition, KernelDecl &Helper) const {
    if (!Helper.DefinedIn.empty())
      return;
    SourceLocation Brace = SM.getFileLoc(Definition->getBody()->getBeginLoc());
    if (const FileEntry *File = SM.getFileEntryForID(SM.getFileID(Brace))) {
      Helper.DefinedIn = File->tryGetRealPathName().str();
      Helper.DefinedLine = SM.getSpellingLineNumber(Brace);
    }
  }

  /// The function whose body holds S, looking through the lambdas written in it.
  const FunctionDecl *enclosingFunction(const Stmt *S) {
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

  /// True when a lambda between S and its function does not capture by reference by default.
  bool inLambdaWithoutReferenceCapture(const Stmt *S) {
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

  /// In a template's pattern, a call whose callee depends on a template parameter through the
  /// object it is called on (`mainloop.load(x)`, `op(x)`, `Op::f(x)`): its instantiations may
  /// reach functions with and without twins (HelperCall::Dispatch).
  void recordDependentCall(const CallExpr *Call) {
    const Expr *Callee = Call->getCallee()->IgnoreParenImpCasts();
    if (!Callee->isTypeDependent() || isa<UnresolvedLookupExpr, UnresolvedMemberExpr>(Callee))
      return;
    if (std::optional<unsigned> RParen = writtenOffset(SM, Target, Call->getRParenLoc()))
      DependentCalls.insert(*RParen);
  }

  /// A span written in the model's file from token B through token E.
  std::optional<Span> writtenSpan(SourceLocation B, SourceLocation E) const {
    if (B.isMacroID() || E.isMacroID())
      return std::nullopt;
    std::optional<unsigned> Begin = writtenOffset(SM, Target, B);
    std::optional<unsigned> End = writtenOffset(SM, Target, E);
    if (!Begin || !End)
      return std::nullopt;
    return Span{*Begin, endOfToken(E)};
  }

  /// The '(' after the token at Loc, where it is written.
  std::optional<unsigned> parenAfter(SourceLocation Loc) const {
    std::optional<Token> Open = Lexer::findNextToken(SM.getFileLoc(Loc), SM, Ctx.getLangOpts());
    if (!Open || !Open->is(tok::l_paren))
      return std::nullopt;
    return writtenOffset(SM, Target, Open->getLocation());
  }

  /// How the call names its callee: the spans its routing edits.
  bool describeCallee(const CallExpr *Call, HelperCall &C) {
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

  KernelDecl describeFunction(const FunctionDecl *Canonical) {
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

  /// KernelDecl::Signature: the template parameters and parameter types, and where the body
  /// begins (file name, line, column), which no two definitions share.
  std::string signatureOf(const FunctionDecl *Canonical, const FunctionDecl *Definition,
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

  /// Where a declaration of a __host__ __device__ function says __host__, and the spelling of
  /// its twin, which is __device__ only: `__host__` goes, a macro (CUTLASS_HOST_DEVICE) becomes
  /// its expansion without `__host__`. False when no such spelling is found.
  bool describeHostSpelling(const FunctionDecl *R, KernelDeclSite &Site) {
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

  /// Name's expansion with every `__host__` left out; a macro that never names `__host__` is kept
  /// as written (its meaning may differ between this parse and the compiler's headers).
  std::optional<std::string> withoutHost(const std::string &Name, unsigned Depth) const {
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

  /// A member whose calls are not written as calls of a name or of `operator()`, so they
  /// cannot be sent to a twin: what it is, for the error; empty when it can have one.
  static std::string unroutable(const FunctionDecl *FD) {
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

  /// Walks up from an annotation to its block and its function.
  void placeUse(const Stmt *Call, AnnotationUse &Use) {
    DynTypedNodeList Parents = Ctx.getParents(*Call);
    const CompoundStmt *Block = nullptr;
    while (!Parents.empty()) {
      const DynTypedNode &Node = Parents[0];
      if (auto *C = Node.get<CompoundStmt>(); C && !Block) {
        Block = C;
        describeBlock(C, Use);
      }
      if (auto *Lambda = Node.get<LambdaExpr>(); Lambda && !Use.InLambda) {
        // Recorded for the function around it: a lambda inside a kernel or a helper reaches
        // that function's group when it captures by reference.
        Use.InLambda = true;
        Use.LambdaByRef = Lambda->getCaptureDefault() == LCD_ByRef;
        Use.Side = FunctionSide::Lambda;
        Parents = Ctx.getParents(Node);
        continue;
      }
      if (auto *FD = Node.get<FunctionDecl>(); FD && isLambdaCallOperator(FD)) {
        if (!Use.InLambda) {
          Use.InLambda = true;
          Use.LambdaByRef =
              cast<CXXMethodDecl>(FD)->getParent()->getLambdaCaptureDefault() == LCD_ByRef;
          Use.Side = FunctionSide::Lambda;
        }
        Parents = Ctx.getParents(Node);
        continue;
      }
      if (auto *FD = Node.get<FunctionDecl>()) {
        if (Use.InLambda && Use.Side == FunctionSide::Lambda && !FD->hasAttr<CUDAGlobalAttr>() &&
            !FD->hasAttr<CUDADeviceAttr>())
          return; // a lambda in host code: Verify reports it
        Use.FunctionName = FD->getNameAsString();
        if (const Stmt *Body = FD->getBody())
          Use.FunctionBody = {SM.getFileOffset(SM.getFileLoc(Body->getBeginLoc())),
                              endOfToken(Body->getEndLoc())};
        if (FD->hasAttr<CUDAGlobalAttr>()) {
          Use.Side = FunctionSide::Global;
          const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern();
          Use.Kernel = kernelIndex((Pattern ? Pattern : FD)->getCanonicalDecl());
        } else {
          Use.Side = FD->hasAttr<CUDADeviceAttr>() ? FunctionSide::Device : FunctionSide::Host;
          if (Use.Side == FunctionSide::Device) {
            Use.HostDevice = FD->hasAttr<CUDAHostAttr>();
            Use.InMember = isa<CXXMethodDecl>(FD);
            Use.Unroutable = unroutable(FD);
            if (Use.Unroutable.empty())
              Use.Helper = helperIndex(patternOf(FD));
          }
        }
        return;
      }
      Parents = Ctx.getParents(Node);
    }
  }

  void describeBlock(const CompoundStmt *Block, AnnotationUse &Use) {
    Use.Block = {SM.getFileOffset(SM.getFileLoc(Block->getLBracLoc())),
                 endOfToken(Block->getRBracLoc())};
    DynTypedNodeList Up = Ctx.getParents(*Block);
    Use.BlockIsSwitchBody = !Up.empty() && Up[0].get<SwitchStmt>();
    if (!Use.BlockIsSwitchBody)
      return;
    for (const Stmt *Child : Block->body())
      for (const Stmt *S = Child; S && isa<SwitchCase>(S); S = cast<SwitchCase>(S)->getSubStmt())
        if (std::optional<unsigned> At = writtenOffset(SM, Target, S->getBeginLoc());
            At && *At > Use.MacroOffset)
          Use.LaterCaseLabels.push_back(*At);
  }

  /// A lead's value when it is a constant; a TRACE_GROUPS size or first, which must be one: the
  /// rows of a CTA are counted from them at the launch site and in the decode map.
  void recordConstant(AnnotationUse &Use, ArgRole Role, const Expr *Arg,
                      const AnnotationSpelling &Spelling) {
    if (isa<CXXDefaultArgExpr>(Arg))
      return;
    unsigned At = writtenOffset(SM, Target, Arg->getBeginLoc()).value_or(Use.MacroOffset);
    std::string What = roleName(Role).str() + " of " + Spelling.Macro.str();
    if (Arg->isValueDependent()) {
      // One decode map serves every instantiation: its row count cannot vary with them.
      if (Role != ArgRole::Lead)
        Use.Problems.push_back({At, What + " must be an integer constant expression that does "
                                           "not depend on a template parameter (the rows of a "
                                           "CTA are counted from it at the launch)"});
      return;
    }
    std::optional<llvm::APSInt> Value = Arg->getIntegerConstantExpr(Ctx);
    if (Role == ArgRole::Lead) {
      if (Value)
        Use.LeadValue = Value->getExtValue();
      return;
    }
    if (!Value) {
      Use.Problems.push_back({At, What + " must be an integer constant expression (the rows of a "
                                         "CTA are counted from it)"});
      return;
    }
    int64_t V = Value->getExtValue();
    bool Ok = Role == ArgRole::Size ? V > 0 && V % 32 == 0 && V <= 1024
                                    : V >= 0 && V % 32 == 0 && V < 1024;
    if (!Ok) {
      Use.Problems.push_back(
          {At, What + " is " + std::to_string(V) +
                   (Role == ArgRole::Size ? "; it must be a multiple of 32 from 32 to 1024"
                                          : "; it must be a multiple of 32 below 1024")});
      return;
    }
    (Role == ArgRole::Size ? Use.SliceThreads : Use.FirstThread) = static_cast<unsigned>(V);
  }

  void recordUse(const CallExpr *Call, AnnotationKind Kind) {
    SourceLocation Macro = SM.getExpansionLoc(Call->getBeginLoc());
    if (SM.getFileEntryForID(SM.getFileID(Macro)) != Target)
      return;
    AnnotationUse Use;
    Use.MacroOffset = SM.getFileOffset(Macro);
    Use.Kind = Kind;
    placeUse(Call, Use);
    if (isSampleKind(Kind) && !UseAt.count(Use.MacroOffset))
      describeSampled(Call, Ctx, Target, Use);
    const AnnotationSpelling &Spelling = spellingOf(Kind);
    for (unsigned I = 0; I < Call->getNumArgs() && I < Spelling.Roles.size(); ++I) {
      ArgRole Role = Spelling.Roles[I];
      const Expr *Arg = Call->getArg(I);
      if (Role == ArgRole::Size || Role == ArgRole::First || Role == ArgRole::Lead)
        recordConstant(Use, Role, Arg, Spelling);
      if ((Role != ArgRole::Payload && Role != ArgRole::Lead && Role != ArgRole::Condition) ||
          isa<CXXDefaultArgExpr>(Arg))
        continue;
      if (std::optional<SideEffect> Effect = Effects.find(Arg)) {
        unsigned ArgAt = writtenOffset(SM, Target, Arg->getBeginLoc()).value_or(Use.MacroOffset);
        Use.Problems.push_back(
            {writtenOffset(SM, Target, Effect->At->getBeginLoc()).value_or(ArgAt),
             sideEffectMessage(roleName(Role).str() + " of " + Spelling.Macro.str(), *Effect)});
      }
    }
    // Uses are per spelled location: an instantiation adds only what its pattern could not see.
    auto [Seen, New] = UseAt.try_emplace(Use.MacroOffset, Model.Uses.size());
    if (!New) {
      AnnotationUse &First = Model.Uses[Seen->second];
      for (Problem &P : Use.Problems)
        First.Problems.push_back(std::move(P));
      return;
    }
    Model.Uses.push_back(std::move(Use));
  }

  /// Calls of the CUDA launch API written in the main file, whatever they launch: the rewrite
  /// routes them through the runtime, which knows at run time which kernels have a traced twin.
  void recordLaunchApiCall(const CallExpr *Call) {
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
};

} // namespace

void buildModel(clang::ASTContext &Ctx, const clang::Preprocessor &PP, SourceModel &Model,
                const clang::FileEntry *File, const CallFacts &Calls, bool AutoKernels) {
  ModelBuilder Builder(Ctx, PP, Model, File, Calls);
  Builder.build(Ctx.getTranslationUnitDecl());
  if (AutoKernels)
    Builder.addAutoKernels(Ctx.getTranslationUnitDecl());
}

} // namespace cutrace
