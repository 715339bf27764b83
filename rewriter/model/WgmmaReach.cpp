#include "model/WgmmaReach.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"

namespace cutrace {

using namespace clang;

bool WgmmaReach::issues(const Stmt *S) {
  if (!S)
    return false;
  if (auto *Asm = dyn_cast<GCCAsmStmt>(S))
    if (Asm->getAsmString()->getString().contains("wgmma.mma_async"))
      return true;
  const FunctionDecl *Callee = nullptr;
  if (auto *Call = dyn_cast<CallExpr>(S))
    Callee = Call->getDirectCallee();
  else if (auto *Construct = dyn_cast<CXXConstructExpr>(S))
    Callee = Construct->getConstructor();
  else if (auto *Ref = dyn_cast<DeclRefExpr>(S)) // a function passed on to be called (CuTe's
    Callee = dyn_cast<FunctionDecl>(Ref->getDecl()); // mma_unpack hands `fma` to explode)
  if (Callee && calls(Callee))
    return true;
  for (const Stmt *Child : S->children())
    if (issues(Child))
      return true;
  return false;
}

bool WgmmaReach::calls(const FunctionDecl *F) {
  const FunctionDecl *Definition = nullptr;
  if (!F->hasBody(Definition) || !Definition)
    return false;
  auto [It, New] = Known.try_emplace(Definition, false);
  if (!New)
    return It->second; // known, or being walked (a recursion adds nothing)
  const bool Found = issues(Definition->getBody());
  Known[Definition] = Found; // the walk may have grown the map: look it up again
  return Found;
}

} // namespace cutrace
