// Whether evaluating an annotation argument (payload, lead, condition) may change program state.
// Stripping deletes the argument, so only expressions whose evaluation changes nothing may be
// written there; the rule is docs/annotations.md, "Side effects".
#ifndef CUTRACE_REWRITER_SIDEEFFECTS_H
#define CUTRACE_REWRITER_SIDEEFFECTS_H

#include "llvm/ADT/StringRef.h"
#include <memory>
#include <optional>
#include <string>

namespace clang {
class ASTContext;
class Stmt;
} // namespace clang

namespace cutrace {

/// The first subexpression of an argument whose evaluation may change program state.
struct SideEffect {
  const clang::Stmt *At = nullptr; // the call, assignment, `new`, ... as written
  std::string What;                // "call to 'next_tile'", "assignment", "'new' expression"
  std::string Why;                 // what the callee does: "'bump' calls 'atomicAdd'"; may be empty
  bool IsCall = false;             // a call or construction the rule's list of callees applies to
};

/// Judges the arguments of one translation unit; each function's verdict is worked out once.
class SideEffectJudge {
public:
  explicit SideEffectJudge(clang::ASTContext &Ctx);
  ~SideEffectJudge();
  SideEffectJudge(const SideEffectJudge &) = delete;
  SideEffectJudge &operator=(const SideEffectJudge &) = delete;

  /// The first effect in S, in evaluation-tree order, or nothing. A call that depends on a
  /// template parameter is not judged here: every instantiation is.
  std::optional<SideEffect> find(const clang::Stmt *S);

private:
  class Walker;
  std::unique_ptr<Walker> Impl;
};

/// "<Subject> has side effects: <What> may change program state (<Why>; <the rule for calls>;
/// stripping would change behaviour)", e.g. Subject "payload of TRACE_RECORD".
std::string sideEffectMessage(llvm::StringRef Subject, const SideEffect &Effect);

} // namespace cutrace

#endif
