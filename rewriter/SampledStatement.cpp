#include "SampledStatement.h"

#include "AnnotationCalls.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

namespace cutrace {

using namespace clang;

namespace {

/// What in a statement cannot be written twice in one function: a label (defined twice), a
/// case label of a switch around it (one case, two places), a static or __shared__ variable (two
/// objects where the program has one). The first one found, with what to say.
struct Uncopyable {
  const Stmt *At = nullptr;
  std::string Why;
};

std::optional<Uncopyable> findUncopyable(const Stmt *S, unsigned SwitchDepth) {
  if (!S)
    return std::nullopt;
  if (isa<LabelStmt>(S))
    return Uncopyable{S, "a label, which the second copy would define again"};
  if (isa<SwitchCase>(S) && SwitchDepth == 0)
    return Uncopyable{S, "a case label of a switch around it, which would stand in both copies"};
  if (auto *D = dyn_cast<DeclStmt>(S))
    for (const Decl *Each : D->decls())
      if (auto *V = dyn_cast<VarDecl>(Each)) {
        if (V->hasAttr<CUDASharedAttr>())
          return Uncopyable{S, "a __shared__ variable, which the second copy would allocate again"};
        if (V->isStaticLocal())
          return Uncopyable{S, "a static variable, of which the second copy would make a second one"};
      }
  unsigned Depth = SwitchDepth + (isa<SwitchStmt>(S) ? 1 : 0);
  for (const Stmt *Child : S->children())
    if (std::optional<Uncopyable> Found = findUncopyable(Child, Depth))
      return Found;
  return std::nullopt;
}

} // namespace

void describeSampled(const CallExpr *Call, ASTContext &Ctx, const FileEntry *Target,
                     AnnotationUse &Use) {
  const SourceManager &SM = Ctx.getSourceManager();
  DynTypedNodeList Up = Ctx.getParents(*Call);
  const CompoundStmt *Block = Up.empty() ? nullptr : Up[0].get<CompoundStmt>();
  if (!Block)
    return; // not a statement of a block: the annotation rules report it
  auto Body = Block->body();
  const auto *It = std::find(Body.begin(), Body.end(), Call);
  if (It == Body.end())
    return;
  auto problem = [&](std::optional<unsigned> At, std::string Why) {
    Use.Problems.push_back({At.value_or(Use.MacroOffset), "TRACE_SAMPLE " + std::move(Why)});
  };
  const Stmt *S = ++It == Body.end() ? nullptr : *It;
  if (!S || isa<NullStmt>(S)) {
    problem(std::nullopt, "must be followed, in its block, by the statement it samples (a loop or "
                          "a block)");
    return;
  }
  std::optional<unsigned> Begin = writtenOffset(SM, Target, S->getBeginLoc());
  if (auto *Next = dyn_cast<CallExpr>(S); Next && annotationCallKind(Next)) {
    problem(Begin, "is followed by another annotation; it samples the statement after it, which "
                   "must be code (a loop or a block)");
    return;
  }
  if (isa<DeclStmt>(S)) {
    problem(Begin, "cannot sample a declaration: the traced build writes the statement twice, once "
                   "in each branch of the condition, and the name would end with its branch; "
                   "sample a block or a loop");
    return;
  }
  if (S->getBeginLoc().isMacroID() || S->getEndLoc().isMacroID() || !Begin ||
      !writtenOffset(SM, Target, S->getEndLoc())) {
    problem(Begin, "samples a statement written by a macro expansion, which the traced build "
                   "cannot copy; sample a statement written in the file");
    return;
  }
  if (std::optional<Uncopyable> Found = findUncopyable(S, 0)) {
    problem(writtenOffset(SM, Target, Found->At->getBeginLoc()),
            "samples a statement that holds " + Found->Why +
                " (the traced build writes the statement twice)");
    return;
  }
  SourceLocation Last = S->getEndLoc();
  unsigned End = SM.getFileOffset(Last) +
                 Lexer::MeasureTokenLength(Last, SM, Ctx.getLangOpts());
  // A statement that ends with ';' (an expression, `do ... while (x);`, `return`) does not
  // count it in its range; a ';' after a block is a statement of its own.
  const Stmt *After = ++It == Body.end() ? nullptr : *It;
  if (std::optional<Token> Next = Lexer::findNextToken(Last, SM, Ctx.getLangOpts());
      Next && Next->is(tok::semi)) {
    auto *Null = dyn_cast_or_null<NullStmt>(After);
    if (!Null || Null->getSemiLoc() != Next->getLocation())
      End = SM.getFileOffset(Next->getLocation()) + 1;
  }
  Use.Sampled = {*Begin, End};
}

} // namespace cutrace
