#include "model/SideEffects.h"

#include "compat/CudaCompat.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ExprConcepts.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/Builtins.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include <map>
#include <vector>

namespace cutrace {
using namespace clang;

namespace {

/// Calls nested deeper than this are not followed: the call is refused, not assumed pure.
constexpr unsigned MaxCallDepth = 16;

/// The families of CUDA functions documented as functions of their arguments (CUDA Math API:
/// mathematical functions, intrinsics, type casts, integer and SIMD intrinsics, half and bfloat16
/// arithmetic; read-only loads; libdevice, which they are built on). Trusted by name because their
/// bodies are compiler builtins, libdevice declarations and inline PTX; applied only to functions
/// declared in CUDA's own headers (docs/annotations.md, "Side effects").
bool inPureCudaFamily(llvm::StringRef Name) {
  static const llvm::Regex Families(
      "^("
      // C and CUDA math functions, float forms with an `f` suffix
      "(acos|acosh|asin|asinh|atan|atan2|atanh|cbrt|ceil|copysign|cos|cosh|cospi|cyl_bessel_i0|"
      "cyl_bessel_i1|erf|erfc|erfcinv|erfcx|erfinv|exp|exp10|exp2|expm1|fabs|fdim|fdivide|floor|"
      "fma|fmax|fmin|fmod|frexp|hypot|ilogb|j0|j1|jn|ldexp|lgamma|llrint|llround|log|log10|log1p|"
      "log2|logb|lrint|lround|modf|nan|nearbyint|nextafter|norm|norm3d|norm4d|normcdf|normcdfinv|"
      "pow|powi|rcbrt|remainder|remquo|rhypot|rint|rnorm|rnorm3d|rnorm4d|round|rsqrt|scalbln|"
      "scalbn|sin|sincos|sincospi|sinh|sinpi|sqrt|tan|tanh|tgamma|trunc|y0|y1|yn)f?|"
      "signbit|isfinite|isinf|isnan|isnormal|fpclassify|isgreater|isgreaterequal|isless|"
      "islessequal|islessgreater|isunordered|__(signbit|isinf|isnan|finite|isfinite)[fl]?|"
      // integer math
      "abs|labs|llabs|min|max|umin|umax|llmin|llmax|ullmin|ullmax|"
      // fast-math and rounded arithmetic intrinsics
      "__(sin|cos|tan|exp|exp10|exp2|log|log2|log10|pow|fdivide|saturate|tanh|sincos)f|"
      "__(fadd|fsub|fmul|fdiv|frcp|fsqrt|frsqrt|fmaf|fmaf_ieee|dadd|dsub|dmul|ddiv|drcp|dsqrt|"
      "fma)_r[nzud]|"
      // type casts: __float2int_rn, __half2float, __float_as_int, __hiloint2double
      "__(float|floats|float2|double|int|uint|ll|ull|short|ushort|half|halves|bfloat16|bfloat162|"
      "low|high|lows|highs)2[a-z0-9_]+|"
      "__(float|double|int|uint|longlong|ull|half|bfloat16|short|ushort)_as_[a-z0-9]+|"
      "__hiloint2double|"
      // integer intrinsics
      "__(brev|brevll|byte_perm|clz|clzll|ffs|ffsll|fns|funnelshift_(l|lc|r|rc)|hadd|rhadd|uhadd|"
      "urhadd|mul24|umul24|mulhi|umulhi|mul64hi|umul64hi|popc|popcll|sad|usad|dp2a_lo|dp2a_hi|"
      "dp4a)|"
      // SIMD (video) and DPX intrinsics; half and bfloat16 arithmetic and comparisons
      "__v[a-z0-9_]+|__h[a-z0-9_]+|h2?(ceil|cos|exp|exp10|exp2|floor|log|log10|log2|rcp|rint|"
      "rsqrt|sin|sqrt|tanh|trunc)|"
      // read-only and cache-hinted loads: a read, like `in[i]`
      "__ld(g|ca|cg|cs|lu|cv)|"
      // libdevice
      "__nv_[a-z0-9_]+"
      ")$");
  return Families.match(Name);
}

/// Pure by name, unless a parameter lets it write into the caller's memory (sincosf, modff,
/// frexpf, remquof, __vibmax_s32): a pointer or reference to something not const.
bool isPureCudaFunction(const FunctionDecl *FD) {
  const IdentifierInfo *Id = FD->getIdentifier();
  if (!Id || !inPureCudaFamily(Id->getName()))
    return false;
  for (const ParmVarDecl *P : FD->parameters()) {
    QualType T = P->getType();
    if ((T->isPointerType() || T->isReferenceType()) && !T->getPointeeType().isConstQualified())
      return false;
  }
  return true;
}

/// Builtins Clang does not mark const or pure that change no state: hints to the optimiser.
bool isHintBuiltin(unsigned ID) {
  return ID == Builtin::BI__builtin_assume || ID == Builtin::BI__builtin_unreachable ||
         ID == Builtin::BI__builtin_is_constant_evaluated;
}

/// Why a function may change program state, said of it: "'f' calls 'g', which writes to global
/// 'h'".
struct FunctionVerdict {
  bool Pure = true;
  std::vector<std::string> Via; // the calls leading to the effect, callees quoted, outermost first
  std::string Reason;   // what the last one does; empty when there is nothing to add (a builtin, a
                        // CUDA function outside the pure families)
  bool TooDeep = false; // the calls nest deeper than the bound

  std::string phrase() const {
    if (TooDeep)
      return "calls functions nested more than " + std::to_string(MaxCallDepth) + " deep";
    std::vector<std::string> Parts;
    for (const std::string &Callee : Via)
      Parts.push_back("calls " + Callee);
    if (!Reason.empty())
      Parts.push_back(Reason);
    if (Parts.size() > 4) // the two outermost calls and what the innermost ones do
      Parts = {Parts[0], Parts[1], "... " + Parts[Parts.size() - 2], Parts.back()};
    return llvm::join(Parts, ", which ");
  }
};

/// An effect found while walking one function body (or the argument itself).
struct Finding {
  const Stmt *At = nullptr;
  std::string What;   // said of the expression: "call to 'f'"
  std::string Act;    // said of the function holding it: "writes to global 'g'", "is recursive"
  std::string Callee; // for a call: the callee, quoted
  std::optional<FunctionVerdict> Through; // for a call into an impure function: its verdict
  bool IsCall = false;

  /// The verdict on the function whose body holds this.
  FunctionVerdict verdict() const {
    FunctionVerdict V;
    V.Pure = false;
    if (!Through) {
      V.Reason = Act;
      return V;
    }
    V.Via.push_back(Callee);
    V.Via.insert(V.Via.end(), Through->Via.begin(), Through->Via.end());
    V.Reason = Through->Reason;
    V.TooDeep = Through->TooDeep;
    return V;
  }
};

Finding found(const Stmt *At, std::string What, std::string Act) {
  Finding F;
  F.At = At;
  F.What = std::move(What);
  F.Act = std::move(Act);
  return F;
}

std::string quoted(const NamedDecl *D) {
  if (auto *Method = dyn_cast<CXXMethodDecl>(D); Method && Method->getParent()->isLambda())
    return "a lambda";
  return "'" + D->getNameAsString() + "'";
}

} // namespace

class SideEffectJudge::Walker {
public:
  explicit Walker(ASTContext &Ctx)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), ResourceInclude(compat::clangResourceDir()) {
    ResourceInclude += "/include/";
  }

  /// Fn is the function whose body S belongs to (its locals may be written), null for an
  /// annotation argument.
  std::optional<Finding> inStmt(const Stmt *S, const FunctionDecl *Fn, unsigned Depth) {
    if (!S)
      return std::nullopt;
    if (auto *Pseudo = dyn_cast<PseudoObjectExpr>(S)) {
      // threadIdx.x and friends are property reads in Clang.
      if (isa<MSPropertyRefExpr>(Pseudo->getSyntacticForm()->IgnoreParens()))
        return std::nullopt;
      return inStmt(Pseudo->getSyntacticForm(), Fn, Depth);
    }
    if (isa<UnaryExprOrTypeTraitExpr, CXXNoexceptExpr, RequiresExpr, ConceptSpecializationExpr>(S))
      return std::nullopt; // unevaluated
    if (auto *TypeId = dyn_cast<CXXTypeidExpr>(S); TypeId && !TypeId->isPotentiallyEvaluated())
      return std::nullopt;
    if (auto *U = dyn_cast<UnaryOperator>(S); U && U->isIncrementDecrementOp())
      if (auto F = write(S, U->getSubExpr(), Fn, U->isIncrementOp() ? "increment" : "decrement"))
        return F;
    if (auto *B = dyn_cast<BinaryOperator>(S); B && B->isAssignmentOp())
      if (auto F = write(S, B->getLHS(), Fn, "assignment"))
        return F;
    if (auto *Call = dyn_cast<CallExpr>(S))
      if (auto F = call(Call, Fn, Depth))
        return F;
    if (auto *Construct = dyn_cast<CXXConstructExpr>(S))
      if (auto F = construction(Construct, Fn, Depth))
        return F;
    if (auto *Bind = dyn_cast<CXXBindTemporaryExpr>(S))
      if (const CXXDestructorDecl *Dtor = Bind->getTemporary()->getDestructor())
        if (auto F = callOf(S, Dtor, Fn, Depth, "destruction of a temporary"))
          return F;
    if (auto *Default = dyn_cast<CXXDefaultArgExpr>(S))
      return inStmt(Default->getExpr(), Fn, Depth);
    if (auto *Default = dyn_cast<CXXDefaultInitExpr>(S))
      return inStmt(Default->getExpr(), Fn, Depth);
    if (auto F = forbidden(S, Fn))
      return F;
    if (auto *Lambda = dyn_cast<LambdaExpr>(S)) {
      // Making the closure evaluates its captures; its body runs only when it is called.
      for (const Expr *Init : Lambda->capture_inits())
        if (auto F = inStmt(Init, Fn, Depth))
          return F;
      return std::nullopt;
    }
    if (auto *Decls = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : Decls->decls())
        if (auto *Var = dyn_cast<VarDecl>(D))
          if (auto F = declaration(Decls, Var, Fn, Depth))
            return F;
      return std::nullopt;
    }
    for (const Stmt *Child : S->children())
      if (auto F = inStmt(Child, Fn, Depth))
        return F;
    return std::nullopt;
  }

private:
  ASTContext &Ctx;
  const SourceManager &SM;
  std::string ResourceInclude;
  std::map<std::pair<const FunctionDecl *, unsigned>, FunctionVerdict> Verdicts;
  llvm::SmallPtrSet<const FunctionDecl *, 16> InProgress;
  llvm::DenseMap<const void *, bool> ToolkitDirs;

  /// Constructs that change state however they are written.
  std::optional<Finding> forbidden(const Stmt *S, const FunctionDecl *Fn) {
    auto Found = [&](const char *What, const char *Act) { return found(S, What, Act); };
    if (isa<CXXNewExpr>(S))
      return Found("'new' expression", "allocates memory with 'new'");
    if (isa<CXXDeleteExpr>(S))
      return Found("'delete' expression", "frees memory with 'delete'");
    if (isa<CXXThrowExpr>(S))
      return Found("'throw' expression", "throws an exception");
    if (isa<AtomicExpr>(S))
      return Found("atomic operation", "performs an atomic operation");
    if (isa<AsmStmt>(S))
      return Found("inline assembly", "contains inline assembly");
    // Written in the argument itself, these are refused outright (docs/annotations.md): a payload
    // stays one expression.
    if (!Fn && isa<LambdaExpr>(S))
      return Found("lambda expression", "");
    if (!Fn && isa<StmtExpr>(S))
      return Found("statement expression", "");
    return std::nullopt;
  }

  /// A write is allowed only into an object the function owns: one of its own non-reference
  /// locals or by-value parameters (or a member or array element of one), or, in a constructor or
  /// destructor, the object itself.
  std::optional<Finding> write(const Stmt *At, const Expr *Target, const FunctionDecl *Fn,
                               const char *What) {
    std::optional<std::string> Foreign = foreignWrite(Target, Fn);
    if (!Foreign)
      return std::nullopt;
    return found(At, What, *Foreign);
  }

  std::optional<std::string> foreignWrite(const Expr *E, const FunctionDecl *Fn) {
    const std::string Through = "writes through a pointer or reference";
    for (;;) {
      E = E->IgnoreParens();
      if (auto *Cast = dyn_cast<CastExpr>(E)) {
        CastKind K = Cast->getCastKind();
        if (K != CK_NoOp && K != CK_DerivedToBase && K != CK_UncheckedDerivedToBase)
          return Through;
        E = Cast->getSubExpr();
      } else if (auto *Member = dyn_cast<MemberExpr>(E)) {
        if (auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
            Field && Field->getType()->isReferenceType())
          return Through;
        if (!Member->isArrow()) {
          E = Member->getBase();
          continue;
        }
        bool OwnObject = isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts()) && Fn &&
                         isa<CXXConstructorDecl, CXXDestructorDecl>(Fn);
        return OwnObject ? std::nullopt : std::optional<std::string>(Through);
      } else if (auto *Subscript = dyn_cast<ArraySubscriptExpr>(E)) {
        auto *Decay = dyn_cast<ImplicitCastExpr>(Subscript->getBase()->IgnoreParens());
        if (!Decay || Decay->getCastKind() != CK_ArrayToPointerDecay)
          return Through;
        E = Decay->getSubExpr();
      } else if (auto *Ref = dyn_cast<DeclRefExpr>(E)) {
        auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
        if (!Var || Var->getType()->isReferenceType())
          return Through;
        if (Var->hasLocalStorage() && Fn && Var->getDeclContext() == Fn &&
            !Ref->refersToEnclosingVariableOrCapture())
          return std::nullopt;
        if (Var->hasLocalStorage())
          return "writes to captured variable " + quoted(Var);
        return (Var->isStaticLocal() ? "writes to static variable " : "writes to global ") +
               quoted(Var);
      } else {
        return Through;
      }
    }
  }

  std::optional<Finding> declaration(const DeclStmt *At, const VarDecl *Var, const FunctionDecl *Fn,
                                     unsigned Depth) {
    if (Var->isStaticLocal() && Var->hasInit() && !Var->hasConstantInitialization())
      return found(At, "static variable", "initializes static variable " + quoted(Var));
    if (auto F = inStmt(Var->getInit(), Fn, Depth))
      return F;
    if (const CXXRecordDecl *Record = Var->getType()->getAsCXXRecordDecl())
      if (Record->hasDefinition() && !Record->hasTrivialDestructor())
        if (const CXXDestructorDecl *Dtor = Record->getDestructor())
          return callOf(At, Dtor, Fn, Depth, "destruction of a local");
    return std::nullopt;
  }

  std::optional<Finding> construction(const CXXConstructExpr *Construct, const FunctionDecl *Fn,
                                      unsigned Depth) {
    const CXXConstructorDecl *Ctor = Construct->getConstructor();
    if (Ctor->isTrivial())
      return std::nullopt;
    return callOf(Construct, Ctor, Fn, Depth,
                  "construction of '" + Construct->getType().getAsString() + "'");
  }

  /// A trivial copy or move assignment is a plain write into its left-hand side.
  const Expr *triviallyAssigned(const CallExpr *Call) {
    auto *Method = dyn_cast_or_null<CXXMethodDecl>(Call->getDirectCallee());
    if (!Method || !Method->isTrivial() ||
        !(Method->isCopyAssignmentOperator() || Method->isMoveAssignmentOperator()))
      return nullptr;
    if (auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
      return Op->getNumArgs() ? Op->getArg(0) : nullptr;
    if (auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
      return Member->getImplicitObjectArgument();
    return nullptr;
  }

  /// Virtual dispatch may reach any override.
  bool dispatchesVirtually(const CallExpr *Call, const FunctionDecl *Callee) {
    auto *Method = dyn_cast<CXXMethodDecl>(Callee);
    if (!Method || !Method->isVirtual())
      return false;
    const Expr *Object = nullptr;
    if (auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
      if (auto *Name = dyn_cast<MemberExpr>(Member->getCallee()->IgnoreParens());
          Name && Name->hasQualifier())
        return false; // obj.Base::f()
      Object = Member->getImplicitObjectArgument();
    } else if (auto *Op = dyn_cast<CXXOperatorCallExpr>(Call); Op && Op->getNumArgs()) {
      Object = Op->getArg(0);
    }
    return !Object || !Method->getDevirtualizedMethod(Object, /*IsAppleKext=*/false);
  }

  std::optional<Finding> call(const CallExpr *Call, const FunctionDecl *Fn, unsigned Depth) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee) {
      if (Call->isTypeDependent() || Call->isValueDependent() ||
          isa<UnresolvedLookupExpr, UnresolvedMemberExpr, CXXDependentScopeMemberExpr>(
              Call->getCallee()->IgnoreImplicit()))
        return std::nullopt; // judged in every instantiation
      Finding F =
          found(Call, "call through a function pointer", "calls through a function pointer");
      F.IsCall = true;
      return F;
    }
    if (const Expr *Target = triviallyAssigned(Call))
      return write(Call, Target, Fn, "assignment");
    if (dispatchesVirtually(Call, Callee)) {
      Finding F = found(Call, "virtual call to " + quoted(Callee),
                        "calls " + quoted(Callee) + " virtually");
      F.IsCall = true;
      return F;
    }
    // A call the compiler evaluates at compile time runs nothing (constexpr with constant
    // arguments, recursive ones included).
    Expr::EvalResult Folded;
    if (!Call->isValueDependent() && Call->EvaluateAsRValue(Folded, Ctx) && !Folded.HasSideEffects)
      return std::nullopt;
    return callOf(Call, Callee, Fn, Depth, "call to " + quoted(Callee));
  }

  /// The finding for running Callee from within Fn, if Callee may change state.
  std::optional<Finding> callOf(const Stmt *At, const FunctionDecl *Callee, const FunctionDecl *Fn,
                                unsigned Depth, std::string What) {
    const FunctionDecl *Definition = Callee->getDefinition();
    if (Fn && Definition == Fn) {
      Finding F = found(At, std::move(What), "is recursive");
      F.Callee = quoted(Callee);
      F.IsCall = true;
      return F;
    }
    FunctionVerdict V = function(Callee, Depth + 1);
    if (V.Pure)
      return std::nullopt;
    Finding F = found(At, std::move(What), "");
    F.Callee = quoted(Callee);
    F.IsCall = true;
    F.Through = std::move(V);
    return F;
  }

  /// Remembered per depth, so that a verdict does not depend on which call reached it first.
  FunctionVerdict function(const FunctionDecl *FD, unsigned Depth) {
    std::pair<const FunctionDecl *, unsigned> Key{FD->getCanonicalDecl(), Depth};
    if (auto Known = Verdicts.find(Key); Known != Verdicts.end())
      return Known->second;
    FunctionVerdict V = judge(FD, Depth);
    Verdicts[Key] = V;
    return V;
  }

  FunctionVerdict judge(const FunctionDecl *FD, unsigned Depth) {
    const FunctionVerdict Pure;
    FunctionVerdict Impure;
    Impure.Pure = false;
    auto Because = [&](std::string Reason) {
      Impure.Reason = std::move(Reason);
      return Impure;
    };
    if (unsigned ID = FD->getBuiltinID())
      return Ctx.BuiltinInfo.isConst(ID) || Ctx.BuiltinInfo.isPure(ID) || isHintBuiltin(ID)
                 ? Pure
                 : Impure;
    if (FD->hasAttr<ConstAttr>() || FD->hasAttr<PureAttr>())
      return Pure;
    bool FromCuda = inCudaHeader(FD);
    if (FromCuda && isPureCudaFunction(FD))
      return Pure;
    if (FD->isTrivial() && !isAssignment(FD))
      return Pure;
    const FunctionDecl *Definition = nullptr;
    if (!FD->hasBody(Definition) || !Definition || !Definition->getBody())
      return FromCuda ? Impure : Because("is not defined in this file");
    if (Definition->hasAttr<WeakAttr>())
      return Because("is weak (another definition may replace it at link time)");
    if (InProgress.contains(Definition))
      return Because("is recursive");
    if (Depth > MaxCallDepth) {
      Impure.TooDeep = true;
      return Impure;
    }
    InProgress.insert(Definition);
    std::optional<Finding> F = inBody(Definition, Depth);
    InProgress.erase(Definition);
    if (!F)
      return Pure;
    FunctionVerdict V = F->verdict();
    // CUDA's own functions are named, not dissected: their insides are builtins and PTX.
    if (FromCuda && !V.TooDeep)
      return Impure;
    return V;
  }

  static bool isAssignment(const FunctionDecl *FD) {
    auto *Method = dyn_cast<CXXMethodDecl>(FD);
    return Method && (Method->isCopyAssignmentOperator() || Method->isMoveAssignmentOperator());
  }

  std::optional<Finding> inBody(const FunctionDecl *Def, unsigned Depth) {
    if (auto *Ctor = dyn_cast<CXXConstructorDecl>(Def))
      for (const CXXCtorInitializer *Init : Ctor->inits())
        if (auto F = inStmt(Init->getInit(), Def, Depth))
          return F;
    if (auto F = inStmt(Def->getBody(), Def, Depth))
      return F;
    // After a destructor's body, its members' and bases' destructors run.
    if (auto *Dtor = dyn_cast<CXXDestructorDecl>(Def)) {
      const CXXRecordDecl *Record = Dtor->getParent();
      auto Part = [&](QualType T) -> std::optional<Finding> {
        const CXXRecordDecl *R = Ctx.getBaseElementType(T)->getAsCXXRecordDecl();
        if (!R || !R->hasDefinition() || R->hasTrivialDestructor() || !R->getDestructor())
          return std::nullopt;
        return callOf(Def->getBody(), R->getDestructor(), Def, Depth, "destruction of a member");
      };
      for (const CXXBaseSpecifier &Base : Record->bases())
        if (auto F = Part(Base.getType()))
          return F;
      for (const FieldDecl *Field : Record->fields())
        if (auto F = Part(Field->getType()))
          return F;
    }
    return std::nullopt;
  }

  /// CUDA's own headers: Clang's CUDA wrappers (where the parse finds CUDA's device functions),
  /// the toolkit's include folder and its crt/ folder (not CCCL, cooperative groups or other
  /// libraries beneath it, which are judged like any code), and the tool's stand-ins for CUDA
  /// headers.
  bool inCudaHeader(const FunctionDecl *FD) {
    SourceLocation Loc = SM.getExpansionLoc(FD->getCanonicalDecl()->getLocation());
    OptionalFileEntryRef File = SM.getFileEntryRefForID(SM.getFileID(Loc));
    if (!File)
      return false;
    llvm::StringRef Name = File->getName();
    if (Name.starts_with("/__cutrace__/stubs/"))
      return true;
    if (Name.starts_with(ResourceInclude))
      return llvm::sys::path::filename(Name).starts_with("__clang_cuda_") ||
             Name.substr(ResourceInclude.size()).starts_with("cuda_wrappers/");
    DirectoryEntryRef Dir = File->getDir();
    auto [Known, New] = ToolkitDirs.try_emplace(&Dir.getDirEntry(), false);
    if (New) {
      llvm::StringRef Path = Dir.getName();
      if (llvm::sys::path::filename(Path) == "crt")
        Path = llvm::sys::path::parent_path(Path);
      Known->second = static_cast<bool>(
          SM.getFileManager().getOptionalFileRef((Path + "/cuda_runtime_api.h").str()));
    }
    return Known->second;
  }
};

SideEffectJudge::SideEffectJudge(ASTContext &Ctx) : Impl(std::make_unique<Walker>(Ctx)) {}
SideEffectJudge::~SideEffectJudge() = default;

std::optional<SideEffect> SideEffectJudge::find(const Stmt *S) {
  std::optional<Finding> F = Impl->inStmt(S, nullptr, 0);
  if (!F)
    return std::nullopt;
  SideEffect E;
  E.At = F->At;
  E.What = F->What;
  E.IsCall = F->IsCall;
  if (F->Through) // "'bump' calls 'atomicAdd'"
    if (std::string Phrase = F->Through->phrase(); !Phrase.empty())
      E.Why = F->Callee + " " + Phrase;
  return E;
}

std::string sideEffectMessage(llvm::StringRef Subject, const SideEffect &Effect) {
  std::string Text =
      Subject.str() + " has side effects: " + Effect.What + " may change program state (";
  if (!Effect.Why.empty())
    Text += Effect.Why + "; ";
  if (Effect.IsCall)
    Text += "only constexpr, const/pure, CUDA's pure intrinsics and side-effect-free inline "
            "functions may be called; ";
  return Text + "stripping would change behaviour)";
}

} // namespace cutrace
