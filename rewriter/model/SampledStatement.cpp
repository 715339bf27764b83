#include "model/SampledStatement.h"

#include "model/AnnotationCalls.h"

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

/// Past the ';' that ends S when S does not count it (an expression, `do ... while (x);`,
/// `return`); a ';' after a block is a statement of its own (After, when it is the next one).
unsigned endWithSemicolon(const Stmt *S, const Stmt *After, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  // An annotation's end is its macro call's ')'.
  SourceLocation Last = SM.getExpansionRange(S->getEndLoc()).getEnd();
  unsigned End = SM.getFileOffset(Last) + Lexer::MeasureTokenLength(Last, SM, Ctx.getLangOpts());
  if (std::optional<Token> Next = Lexer::findNextToken(Last, SM, Ctx.getLangOpts());
      Next && Next->is(tok::semi)) {
    auto *Null = dyn_cast_or_null<NullStmt>(After);
    if (!Null || Null->getSemiLoc() != Next->getLocation())
      End = SM.getFileOffset(Next->getLocation()) + 1;
  }
  return End;
}

/// Where S begins in the file: a macro's expansion at its start (`CUTLASS_PRAGMA_NO_UNROLL`,
/// whose `_Pragma` makes a loop attribute) begins at the macro's name, which the copies repeat.
std::optional<unsigned> writtenBegin(const Stmt *S, const SourceManager &SM,
                                     const FileEntry *Target) {
  return writtenOffset(SM, Target, SM.getExpansionRange(S->getBeginLoc()).getBegin());
}

/// Written in the file (macro invocations included: the copies repeat them as written) and free
/// of what cannot stand twice; else a problem. Next is the statement after the sampled ones.
template <class Problem>
bool copyable(const Stmt *S, const Stmt *Next, ASTContext &Ctx, const FileEntry *Target,
              Problem &problem) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::optional<unsigned> Begin = writtenBegin(S, SM, Target);
  std::optional<unsigned> End =
      writtenOffset(SM, Target, SM.getExpansionRange(S->getEndLoc()).getEnd());
  // One macro that writes this statement and the next: the copies would take both.
  std::optional<unsigned> NextBegin = Next ? writtenBegin(Next, SM, Target) : std::nullopt;
  if (!Begin || !End || (NextBegin && *NextBegin <= *End)) {
    problem(Begin, "samples a statement written by a macro expansion that also writes the code "
                   "around it, which the traced build cannot copy; sample a statement written in "
                   "the file");
    return false;
  }
  if (std::optional<Uncopyable> Found = findUncopyable(S, 0)) {
    problem(writtenOffset(SM, Target, Found->At->getBeginLoc()),
            "samples a statement that holds " + Found->Why +
                " (the traced build writes the statement twice)");
    return false;
  }
  return true;
}

/// What a sample call samples, [First, Last): the next statement of its block or (Rest) the rest
/// of the block, without the empty statements that end it; End is the block's end.
struct SampledRange {
  const Stmt *const *First = nullptr, *const *Last = nullptr, *const *End = nullptr;
};

std::optional<SampledRange> sampledRange(const CallExpr *Call, ASTContext &Ctx, bool Rest) {
  DynTypedNodeList Up = Ctx.getParents(*Call);
  const CompoundStmt *Block = Up.empty() ? nullptr : Up[0].get<CompoundStmt>();
  if (!Block)
    return std::nullopt; // not a statement of a block: the annotation rules report it
  auto Body = Block->body();
  const auto *It = std::find(Body.begin(), Body.end(), Call);
  if (It == Body.end())
    return std::nullopt;
  SampledRange R{It + 1, Body.end(), Body.end()};
  while (R.Last != R.First && isa<NullStmt>(*(R.Last - 1)))
    --R.Last;
  if (!Rest && R.Last != R.First)
    R.Last = R.First + 1;
  return R;
}

} // namespace

bool sampleIssuesWgmma(const CallExpr *Call, ASTContext &Ctx, AnnotationKind Kind,
                       WgmmaReach &Reach) {
  std::optional<SampledRange> R = sampledRange(Call, Ctx, Kind == AnnotationKind::SampleRest);
  if (!R)
    return false;
  return std::any_of(R->First, R->Last, [&](const Stmt *S) { return Reach.issues(S); });
}

void describeSampled(const CallExpr *Call, ASTContext &Ctx, const FileEntry *Target,
                     AnnotationUse &Use) {
  const SourceManager &SM = Ctx.getSourceManager();
  const bool Rest = Use.Kind == AnnotationKind::SampleRest;
  std::optional<SampledRange> Range = sampledRange(Call, Ctx, Rest);
  if (!Range)
    return;
  auto problem = [&](std::optional<unsigned> At, std::string Why) {
    Use.Problems.push_back(
        {At.value_or(Use.MacroOffset), spellingOf(Use.Kind).Macro.str() + " " + std::move(Why)});
  };
  const Stmt *const *First = Range->First, *const *Last = Range->Last;
  if (First == Last) {
    problem(std::nullopt, Rest ? "must be followed, in its block, by the statements it samples"
                               : "must be followed, in its block, by the statement it samples (a "
                                 "loop or a block)");
    return;
  }
  std::optional<unsigned> Begin = writtenBegin(*First, SM, Target);
  if (auto *Next = dyn_cast<CallExpr>(*First); Next && annotationCallKind(Next)) {
    problem(Begin, Rest ? "is followed by another annotation; it samples the statements after it, "
                          "which must begin with code"
                        : "is followed by another annotation; it samples the statement after "
                          "it, which must be code (a loop or a block)");
    return;
  }
  // A declaration among the rest of a block is fine: its name ends with the block anyway.
  if (!Rest && isa<DeclStmt>(*First)) {
    problem(Begin, "cannot sample a declaration: the traced build writes the statement twice, once "
                   "in each branch of the condition, and the name would end with its branch; "
                   "sample a block or a loop");
    return;
  }
  for (const Stmt *const *S = First; S != Last; ++S) {
    auto *Inner = dyn_cast<CallExpr>(*S);
    if (Inner && annotationCallKind(Inner))
      continue; // stripped from the copy, expanded in the recording one
    const Stmt *After = S + 1 != Last || Last == Range->End ? nullptr : *Last;
    if (!copyable(*S, After, Ctx, Target, problem))
      return;
  }
  Use.Sampled = {*Begin, endWithSemicolon(*(Last - 1), Last == Range->End ? nullptr : *Last, Ctx)};
}

} // namespace cutrace
