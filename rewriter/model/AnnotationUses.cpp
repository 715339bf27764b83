// Annotation calls: their block, function and constant arguments
// (rewriter/model/ModelBuilderVisitor.h).
#include "model/ModelBuilderVisitor.h"

#include "model/AnnotationCalls.h"
#include "model/SampledStatement.h"

#include "clang/AST/ASTLambda.h"
#include "clang/AST/ParentMapContext.h"

namespace cutrace::builder {
using namespace clang;

void ModelBuilder::placeUse(const Stmt *Call, AnnotationUse &Use) {
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

void ModelBuilder::describeBlock(const CompoundStmt *Block, AnnotationUse &Use) {
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

void ModelBuilder::recordConstant(AnnotationUse &Use, ArgRole Role, const Expr *Arg,
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
  bool Ok =
      Role == ArgRole::Size ? V > 0 && V % 32 == 0 && V <= 1024 : V >= 0 && V % 32 == 0 && V < 1024;
  if (!Ok) {
    Use.Problems.push_back(
        {At, What + " is " + std::to_string(V) +
                 (Role == ArgRole::Size ? "; it must be a multiple of 32 from 32 to 1024"
                                        : "; it must be a multiple of 32 below 1024")});
    return;
  }
  (Role == ArgRole::Size ? Use.SliceThreads : Use.FirstThread) = static_cast<unsigned>(V);
}

void ModelBuilder::recordUse(const CallExpr *Call, AnnotationKind Kind) {
  SourceLocation Macro = SM.getExpansionLoc(Call->getBeginLoc());
  if (SM.getFileEntryForID(SM.getFileID(Macro)) != Target)
    return;
  AnnotationUse Use;
  Use.MacroOffset = SM.getFileOffset(Macro);
  Use.Kind = Kind;
  placeUse(Call, Use);
  if (isSampleKind(Kind) && !UseAt.count(Use.MacroOffset))
    describeSampled(Call, Ctx, Target, Use);
  // Each instance: a template's pattern has its calls unresolved.
  if (isSampleKind(Kind))
    Use.SampledIssuesWgmma = sampleIssuesWgmma(Call, Ctx, Kind, Wgmma);
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
    First.SampledIssuesWgmma |= Use.SampledIssuesWgmma;
    for (Problem &P : Use.Problems)
      First.Problems.push_back(std::move(P));
    return;
  }
  Model.Uses.push_back(std::move(Use));
}

} // namespace cutrace::builder
