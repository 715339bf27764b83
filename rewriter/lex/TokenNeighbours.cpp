#include "lex/TokenNeighbours.h"

#include <algorithm>

namespace cutrace {

TokenNeighbours::TokenNeighbours(const std::vector<RawToken> &Tokens)
    : Tokens(Tokens), DirectiveOf(Tokens.size(), -1), KindOf(Tokens.size(), Conditional::None),
      Group(Tokens.size()) {
  std::vector<std::vector<int>> Open; // the '#'s of each #if group not yet closed
  for (size_t I = 0; I < Tokens.size(); ++I) {
    if (!Tokens[I].InDirective)
      continue;
    if (Tokens[I].StartsLine) {
      DirectiveOf[I] = static_cast<int>(I);
      continue;
    }
    DirectiveOf[I] = DirectiveOf[I - 1];
    if (DirectiveOf[I] + 1 != static_cast<int>(I))
      continue;
    // The directive's name: classify the conditionals and link each group's directives.
    int Hash = DirectiveOf[I];
    llvm::StringRef Name = Tokens[I].Text;
    if (Name == "if" || Name == "ifdef" || Name == "ifndef") {
      KindOf[Hash] = Conditional::If;
      Open.push_back({Hash});
    } else if (!Open.empty() &&
               (Name == "else" || Name == "elif" || Name == "elifdef" || Name == "elifndef")) {
      KindOf[Hash] = Conditional::ElseOrElif;
      Open.back().push_back(Hash);
    } else if (!Open.empty() && Name == "endif") {
      KindOf[Hash] = Conditional::Endif;
      Open.back().push_back(Hash);
      for (int D : Open.back())
        Group[D] = Open.back();
      Open.pop_back();
    }
  }
  // A group left open by the end of the file is read as if its directives were not there.
  for (const std::vector<int> &G : Open)
    for (int D : G)
      if (Group[D].empty())
        KindOf[D] = Conditional::None;
}

namespace {
bool hasElse(const std::vector<RawToken> &Tokens, const std::vector<int> &Group) {
  for (int D : Group)
    if (Tokens[D + 1].Text == "else")
      return true;
  return false;
}
/// `#if 0`: a branch no configuration takes (code commented out), so it precedes nothing.
bool neverTaken(const std::vector<RawToken> &Tokens, int Hash) {
  size_t I = static_cast<size_t>(Hash);
  return I + 2 < Tokens.size() && Tokens[I + 1].isIdentifier("if") && Tokens[I + 2].Text == "0" &&
         (I + 3 == Tokens.size() || Tokens[I + 3].StartsLine);
}
void sortUnique(std::vector<int> &V) {
  std::sort(V.begin(), V.end());
  V.erase(std::unique(V.begin(), V.end()), V.end());
}
} // namespace

void TokenNeighbours::walkBack(int J, std::vector<int> &Out) {
  std::vector<int> Found = backFrom(J);
  Out.insert(Out.end(), Found.begin(), Found.end());
}

bool TokenNeighbours::pragmaBefore(size_t I) {
  backFrom(static_cast<int>(I) - 1);
  return PragmaMemo[static_cast<int>(I) - 1];
}

void TokenNeighbours::walkForward(int J, std::vector<int> &Out) {
  std::vector<int> Found = forwardFrom(J);
  Out.insert(Out.end(), Found.begin(), Found.end());
}

/// The code tokens reachable going backwards from J (J itself included).
std::vector<int> TokenNeighbours::backFrom(int J) {
  if (auto It = BeforeMemo.find(J); It != BeforeMemo.end())
    return It->second;
  std::vector<int> Out;
  int Start = J;
  bool Pragma = false;
  while (J >= 0 && Tokens[J].InDirective) {
    int Hash = DirectiveOf[J];
    switch (KindOf[Hash]) {
    case Conditional::None:
      Pragma |= Hash + 1 < static_cast<int>(Tokens.size()) && !Tokens[Hash + 1].StartsLine &&
                Tokens[Hash + 1].isIdentifier("pragma");
      J = Hash - 1;
      continue;
    case Conditional::If: // the start of the branch we are in: go on before the group
      J = Hash - 1;
      continue;
    case Conditional::ElseOrElif: // the start of a later branch: the earlier ones are skipped
      J = Group[Hash].front() - 1;
      continue;
    case Conditional::Endif: {
      // Coming from after the group: the last token of any branch, or before the group when
      // no branch is taken.
      const std::vector<int> &G = Group[Hash];
      for (size_t B = 1; B < G.size(); ++B) {
        if (neverTaken(Tokens, G[B - 1]))
          continue;
        walkBack(G[B] - 1, Out);
        Pragma |= PragmaMemo[G[B] - 1];
      }
      if (!hasElse(Tokens, G)) {
        walkBack(G.front() - 1, Out);
        Pragma |= PragmaMemo[G.front() - 1];
      }
      J = -2; // done: the branches continued the walk
      break;
    }
    }
    if (J == -2)
      break;
  }
  if (J >= -1)
    Out.push_back(J);
  sortUnique(Out);
  PragmaMemo[Start] = Pragma;
  return BeforeMemo[Start] = Out;
}

/// The code tokens reachable going forwards from J (J itself included).
std::vector<int> TokenNeighbours::forwardFrom(int J) {
  if (auto It = AfterMemo.find(J); It != AfterMemo.end())
    return It->second;
  std::vector<int> Out;
  const int End = static_cast<int>(Tokens.size());
  int Start = J;
  while (J < End && Tokens[J].InDirective) {
    int Hash = DirectiveOf[J];
    int Next = Hash + 1;
    while (Next < End && Tokens[Next].InDirective && !Tokens[Next].StartsLine)
      ++Next;
    switch (KindOf[Hash]) {
    case Conditional::None:
    case Conditional::Endif:
      J = Next;
      continue;
    case Conditional::ElseOrElif: // the end of the branch we are in: go on after the group
      J = Group[Hash].back();
      continue;
    case Conditional::If: {
      // Entering the group: the first token of any branch, or after it when none is taken.
      const std::vector<int> &G = Group[Hash];
      for (size_t B = 0; B + 1 < G.size(); ++B) {
        if (neverTaken(Tokens, G[B]))
          continue;
        int First = G[B] + 1;
        while (First < End && Tokens[First].InDirective && !Tokens[First].StartsLine)
          ++First;
        walkForward(First, Out); // an empty branch walks on through the next directive
      }
      if (!hasElse(Tokens, G))
        walkForward(G.back(), Out);
      J = End + 1;
      break;
    }
    }
  }
  if (J <= End)
    Out.push_back(J);
  sortUnique(Out);
  return AfterMemo[Start] = Out;
}

std::vector<int> TokenNeighbours::before(size_t I) { return backFrom(static_cast<int>(I) - 1); }

std::vector<int> TokenNeighbours::after(size_t I) { return forwardFrom(static_cast<int>(I) + 1); }

} // namespace cutrace
