// The model builder (buildModel, rewriter/model/ModelBuilder.h): one visitor over a translation
// unit, its parts by concern in SourceModel.cpp (traversal, locations, jumps), FunctionDecls.cpp,
// LaunchSites.cpp, KernelValues.cpp, HelperCalls.cpp and AnnotationUses.cpp. Only those include it.
#ifndef CUTRACE_REWRITER_MODELBUILDERVISITOR_H
#define CUTRACE_REWRITER_MODELBUILDERVISITOR_H

#include "model/ModelBuilder.h"
#include "model/SideEffects.h"
#include "model/WgmmaReach.h"
#include "model/SourceModel.h"
#include "model/UnitCalls.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <set>

namespace cutrace::builder {
using namespace clang;

class ModelBuilder : public RecursiveASTVisitor<ModelBuilder> {
public:
  ModelBuilder(ASTContext &Ctx, const Preprocessor &PP, SourceModel &Model, const FileEntry *Target,
               const CallFacts &Calls, const FilesToVisit *Visit = nullptr)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), PP(PP), Model(Model), Target(Target), Calls(Calls),
        Visit(Visit), Effects(Ctx) {}

  bool shouldVisitTemplateInstantiations() const { return true; }

  /// Declarations of files outside Visit are left out (buildModel).
  bool TraverseDecl(Decl *D);

  /// --auto: every kernel defined in the file, with its outermost loops
  /// (rewriter/model/AutoLoops.h).
  void addAutoKernels(TranslationUnitDecl *TU);

  bool VisitCallExpr(CallExpr *Call);

  /// The model of the translation unit's code written in the file.
  void build(TranslationUnitDecl *TU);

  /// Bodies are kept so that a Clang error in a function holding an annotation Clang could not
  /// make a call of is still known to be inside an annotated function (rewriter/strip/Verify.cpp).
  bool VisitFunctionDecl(FunctionDecl *FD);

  bool VisitGotoStmt(GotoStmt *Goto);

  bool VisitSwitchStmt(SwitchStmt *Switch);

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *Call);

  /// True inside a function compiled for the device (__device__, __global__, __host__ __device__).
  bool inDeviceCode(const Stmt *S);

  /// Where a macro's body (defined in this file) writes Loc: a macro argument maps to the
  /// parameter that receives it.
  SourceLocation bodyLoc(SourceLocation Loc) const;

  std::optional<Span> bodySpan(SourceRange R) const;

  /// The bytes from token B through token E, when both are written in one file.
  std::optional<Span> tokenSpan(SourceLocation B, SourceLocation E) const;

  /// Where the invocation of a macro writes Loc, when Loc comes from one of its arguments.
  SourceLocation argumentLoc(SourceLocation Loc) const;

  std::optional<Span> argumentSpan(SourceRange R) const;

  /// A launch written whole inside a macro's argument (`CHECK(k<<<g, b>>>(x))`) is edited where
  /// the argument is written, like a launch outside any macro.
  bool describeInArgument(const CUDAKernelCallExpr *Call, LaunchSite &Site);

  void describeMacroBody(const Expr *Callee, const CallExpr *Config, LaunchSite &Site);

  /// A kernel named other than as the callee of a launch: its pointer may be launched anywhere.
  bool VisitDeclRefExpr(DeclRefExpr *Ref);

  /// `k<4>` where the kernel's overloads are still unresolved in the syntactic form.
  bool VisitUnresolvedLookupExpr(UnresolvedLookupExpr *Lookup);

private:
  void recordValueUse(const Expr *Ref, const FunctionDecl *FD, SourceLocation NameLoc);

  static void unroutable(KernelValueUse &Use, std::string Why);

  /// The name token of the call's function, where the file writes it.
  void renameApiCall(const CallExpr *Call, llvm::StringRef Name, KernelValueUse &Use);

  /// The span a traced build replaces by the registering form of the same pointer: the reference
  /// with its `&`, or the reference that decays to a pointer; and why not, when it cannot.
  void describeValue(const Expr *Ref, const FunctionDecl *FD, KernelValueUse &Use);

  /// The callee of a call, through parentheses (a kernel called from device code).
  bool isCalled(const Expr *Ref) const;

  /// The `>` that closes a template argument list written as the first half of `>>`: Clang
  /// names it by a location of its own, expanded from that character of the file.
  SourceLocation splitTokenLoc(SourceLocation Loc) const;

  /// `template __global__ void k<float>(float *);`: the instance is registered where it is made.
  void recordExplicitInstantiation(const FunctionDecl *FD);

  ASTContext &Ctx;
  const SourceManager &SM;
  const Preprocessor &PP; // macro definitions, for the spelling of device-only twins
  SourceModel &Model;
  const FileEntry *Target; // the file the model describes
  const CallFacts &Calls;  // the translation unit's: which functions reach annotations
  const FilesToVisit *Visit; // null: every declaration of the unit
  SideEffectJudge
      Effects; // rewriter/model/SideEffects.h: what payloads, leads and conditions may call
  llvm::DenseMap<const FunctionDecl *, int> KernelIds;
  llvm::DenseSet<unsigned> SeenLaunches;
  std::set<std::pair<unsigned, int>> SeenHelperCalls; // (')' of the call, helper)
  std::set<unsigned> DependentCalls;                  // ')' of pattern calls on dependent objects
  llvm::DenseMap<unsigned, size_t> ValueUseAt;        // name offset -> index in Model.ValueUses
  std::set<std::pair<unsigned, unsigned>> SeenJumps;
  llvm::DenseMap<const FunctionDecl *, int> HelperIds;
  llvm::DenseMap<unsigned, size_t> UseAt; // macro offset -> index in Model.Uses
  WgmmaReach Wgmma;                       // what samples issue wgmma

  /// Just past the token at Loc, where it is written (a digraph brace is two characters).
  unsigned endOfToken(SourceLocation Loc) const;

  void recordJump(SourceLocation From, SourceLocation To, bool IsCase);

  /// A kernel's parameter types as its first declaration writes them (with its name, its
  /// identity), or canonical and fully qualified (valid C++ anywhere in its scope).
  static std::string paramTypes(const FunctionDecl *FD, const ASTContext &Ctx, bool Qualified);

  /// The kernel a callee expression names, as its template pattern's first declaration.
  const FunctionDecl *kernelOf(const Expr *Callee);

  static const FunctionDecl *canonicalKernel(const FunctionDecl *FD);

  std::string spelled(SourceRange R) const;

  static bool isLaunchApi(llvm::StringRef Name);

  /// Where the callee of a launch is written and how it names its kernel.
  void describeCallee(const Expr *Callee, LaunchSite &Site);

  static bool hasOverloads(const FunctionDecl *FD);

  int kernelIndex(const FunctionDecl *Canonical);

  int helperIndex(const FunctionDecl *Canonical);

  /// The function a call or an annotation belongs to, as the template's pattern when it is an
  /// instantiation.
  static const FunctionDecl *patternOf(const FunctionDecl *FD);

  /// A call of a __device__ function or member defined in the main file, from device code
  /// written there: the traced build sends it to the function's twin when the function reaches
  /// an annotation.
  void recordHelperCall(const CallExpr *Call);

  /// A declaration or definition written here of a function that reaches annotations, whoever
  /// calls it. A declaration gets the twin's declaration beside it, wherever the definition is (a
  /// forward declaration in one header, the annotated definition in a later one); a __device__
  /// definition gets its twin here even when only a kernel of another file reaches it (a
  /// pass-through wrapper such as FlashAttention-3's `enable_sm90<Kernel>::operator()`, called
  /// from CUTLASS's `device_kernel`).
  void recordReaching(const FunctionDecl *FD);

  /// A callee defined in another file: which file, and the line of its body's '{', which name
  /// its twin's sites there (`<name>_<line>`).
  void describeDefinitionElsewhere(const FunctionDecl *Definition, KernelDecl &Helper) const;

  /// The function whose body holds S, looking through the lambdas written in it.
  const FunctionDecl *enclosingFunction(const Stmt *S);

  /// True when a lambda between S and its function does not capture by reference by default.
  bool inLambdaWithoutReferenceCapture(const Stmt *S);

  /// In a template's pattern, a call whose callee depends on a template parameter through the
  /// object it is called on (`mainloop.load(x)`, `op(x)`, `Op::f(x)`): its instantiations may
  /// reach functions with and without twins (HelperCall::Dispatch).
  void recordDependentCall(const CallExpr *Call);

  /// A span written in the model's file from token B through token E.
  std::optional<Span> writtenSpan(SourceLocation B, SourceLocation E) const;

  /// The '(' after the token at Loc, where it is written.
  std::optional<unsigned> parenAfter(SourceLocation Loc) const;

  /// How the call names its callee: the spans its routing edits.
  bool describeCallee(const CallExpr *Call, HelperCall &C);

  KernelDecl describeFunction(const FunctionDecl *Canonical);

  /// KernelDecl::Signature: the template parameters and parameter types, and where the body
  /// begins (file name, line, column), which no two definitions share.
  std::string signatureOf(const FunctionDecl *Canonical, const FunctionDecl *Definition,
                          const std::string &ParamTypes) const;

  /// Where a declaration of a __host__ __device__ function says __host__, and the spelling of
  /// its twin, which is __device__ only: `__host__` goes, a macro (CUTLASS_HOST_DEVICE) becomes
  /// its expansion without `__host__`. False when no such spelling is found.
  bool describeHostSpelling(const FunctionDecl *R, KernelDeclSite &Site);

  /// Name's expansion with every `__host__` left out; a macro that never names `__host__` is kept
  /// as written (its meaning may differ between this parse and the compiler's headers).
  std::optional<std::string> withoutHost(const std::string &Name, unsigned Depth) const;

  /// A member whose calls are not written as calls of a name or of `operator()`, so they
  /// cannot be sent to a twin: what it is, for the error; empty when it can have one.
  static std::string unroutable(const FunctionDecl *FD);

  /// Walks up from an annotation to its block and its function.
  void placeUse(const Stmt *Call, AnnotationUse &Use);

  void describeBlock(const CompoundStmt *Block, AnnotationUse &Use);

  /// A lead's value when it is a constant; a TRACE_GROUPS size or first, which must be one: the
  /// rows of a CTA are counted from them at the launch site and in the decode map.
  void recordConstant(AnnotationUse &Use, ArgRole Role, const Expr *Arg,
                      const AnnotationSpelling &Spelling);

  void recordUse(const CallExpr *Call, AnnotationKind Kind);

  /// Calls of the CUDA launch API written in the main file, whatever they launch: the rewrite
  /// routes them through the runtime, which knows at run time which kernels have a traced twin.
  void recordLaunchApiCall(const CallExpr *Call);
};

} // namespace cutrace::builder

#endif
