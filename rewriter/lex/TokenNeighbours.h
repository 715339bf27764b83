// Which code tokens can stand right before or right after a token, over every preprocessor
// configuration: the raw token stream holds all branches of each #if group, while a compiler sees
// one branch (or none) of each. A rule about a token's neighbour must hold for all of them.
#ifndef CUTRACE_REWRITER_TOKENNEIGHBOURS_H
#define CUTRACE_REWRITER_TOKENNEIGHBOURS_H

#include "lex/RawTokens.h"
#include <map>
#include <vector>

namespace cutrace {

class TokenNeighbours {
public:
  explicit TokenNeighbours(const std::vector<RawToken> &Tokens);

  /// Indices of the code tokens (not directives) that come right before token I in some
  /// configuration, sorted; -1 stands for the start of the file.
  std::vector<int> before(size_t I);
  /// Indices of the code tokens that come right after token I in some configuration, sorted;
  /// Tokens.size() stands for the end of the file.
  std::vector<int> after(size_t I);
  /// True when, in some configuration, a `#pragma` stands between token I and the code token
  /// before it: such a pragma applies to the statement that starts at I.
  bool pragmaBefore(size_t I);

private:
  enum class Conditional { None, If, ElseOrElif, Endif };
  const std::vector<RawToken> &Tokens;
  std::vector<int> DirectiveOf;        // for a directive token: index of its '#'; else -1
  std::vector<Conditional> KindOf;     // by '#' index
  std::vector<std::vector<int>> Group; // by '#' index of a conditional: its group's '#'s, in order
  std::map<int, std::vector<int>> BeforeMemo, AfterMemo;
  std::map<int, bool> PragmaMemo; // by start of a backward walk: it crossed a #pragma

  void walkBack(int J, std::vector<int> &Out);
  void walkForward(int J, std::vector<int> &Out);
  std::vector<int> backFrom(int J);
  std::vector<int> forwardFrom(int J);
};

} // namespace cutrace

#endif
