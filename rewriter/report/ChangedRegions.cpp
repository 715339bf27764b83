#include "report/ChangedRegions.h"

#include "lex/LineIndex.h"
#include "llvm/ADT/DenseSet.h"
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace cutrace {

llvm::StringRef regionKindName(ChangedRegion::Kind Kind) {
  switch (Kind) {
  case ChangedRegion::Kernel:
    return "kernel";
  case ChangedRegion::LaunchSite:
    return "launch site";
  case ChangedRegion::Function:
    return "function";
  case ChangedRegion::FileScope:
    return "file scope";
  }
  return "?";
}

// ---------------------------------------------------------------------------------------------
// Finding functions lexically (strip mode has no AST)

namespace {

/// Per byte: true where it is code, false inside comments, literals and preprocessor lines. A
/// report heuristic, not a parser: good enough to find braces and names.
std::vector<bool> codeMask(llvm::StringRef B) {
  std::vector<bool> Code(B.size(), true);
  size_t I = 0;
  bool LineStart = true;
  auto Mark = [&](size_t From, size_t To) {
    for (size_t K = From; K < To && K < B.size(); ++K)
      Code[K] = false;
  };
  while (I < B.size()) {
    char C = B[I];
    if (C == '\n') {
      LineStart = true;
      ++I;
      continue;
    }
    if (C == ' ' || C == '\t' || C == '\r') {
      ++I;
      continue;
    }
    size_t From = I;
    if (LineStart && C == '#') { // directive, with continuation lines
      while (I < B.size() && !(B[I] == '\n' && B[I - 1] != '\\'))
        ++I;
      Mark(From, I);
      continue;
    }
    LineStart = false;
    if (B.substr(I).starts_with("//")) {
      I = std::min(B.size(), B.find('\n', I));
      Mark(From, I);
    } else if (B.substr(I).starts_with("/*")) {
      size_t End = B.find("*/", I + 2);
      I = End == llvm::StringRef::npos ? B.size() : End + 2;
      Mark(From, I);
    } else if (C == '"' || (C == '\'' && (I == 0 || !(std::isalnum((unsigned char)B[I - 1]) ||
                                                      B[I - 1] == '_')))) {
      bool Raw = C == '"' && I > 0 && B[I - 1] == 'R';
      if (Raw) {
        size_t Paren = B.find('(', I);
        std::string Close = ")" + B.substr(I + 1, Paren - I - 1).str() + "\"";
        size_t End = Paren == llvm::StringRef::npos ? B.size() : B.find(Close, Paren);
        I = End == llvm::StringRef::npos ? B.size() : End + Close.size();
      } else {
        for (++I; I < B.size() && B[I] != C && B[I] != '\n'; ++I)
          if (B[I] == '\\')
            ++I;
        I = std::min(B.size(), I + 1);
      }
      Mark(From, I);
    } else {
      ++I;
    }
  }
  return Code;
}

struct BracePair {
  unsigned Open, Close;
};

std::vector<BracePair> bracePairs(llvm::StringRef B, const std::vector<bool> &Code) {
  std::vector<BracePair> Pairs;
  std::vector<unsigned> Stack;
  for (unsigned I = 0; I < B.size(); ++I) {
    if (!Code[I])
      continue;
    if (B[I] == '{')
      Stack.push_back(I);
    else if (B[I] == '}' && !Stack.empty()) {
      Pairs.push_back({Stack.back(), I});
      Stack.pop_back();
    }
  }
  std::sort(Pairs.begin(), Pairs.end(),
            [](const BracePair &A, const BracePair &C) { return A.Open < C.Open; });
  return Pairs;
}

/// Start of the declaration that the '{' at Open begins the body of: after the previous ';',
/// '{' or '}' in code, past comments and whitespace.
unsigned headerStart(llvm::StringRef B, const std::vector<bool> &Code, unsigned Open) {
  unsigned I = Open;
  while (I > 0 && !(Code[I - 1] && (B[I - 1] == ';' || B[I - 1] == '{' || B[I - 1] == '}')))
    --I;
  while (I < Open && (!Code[I] || std::isspace((unsigned char)B[I])))
    ++I;
  return I;
}

std::string collapseSpace(llvm::StringRef S) {
  std::string Out;
  for (char C : S)
    if (!std::isspace((unsigned char)C))
      Out += C;
    else if (!Out.empty() && Out.back() != ' ')
      Out += ' ';
  return llvm::StringRef(Out).trim().str();
}

/// The function name a header declares: the identifier before the '(' that matches the last
/// ')'; empty when the header is not a function's (namespace, class, initializer).
std::string functionName(llvm::StringRef B, const std::vector<bool> &Code, unsigned From,
                         unsigned Open) {
  llvm::StringRef Header = B.substr(From, Open - From);
  for (llvm::StringRef Word : {"namespace", "struct", "class", "union", "enum"}) {
    size_t P = Header.find(Word);
    bool WholeWord =
        P != llvm::StringRef::npos && (P == 0 || !std::isalnum((unsigned char)Header[P - 1])) &&
        (P + Word.size() >= Header.size() || !std::isalnum((unsigned char)Header[P + Word.size()]));
    if (WholeWord && Header.find('(') > P)
      return "";
  }
  unsigned Close = Open;
  while (Close > From && !(Code[Close - 1] && B[Close - 1] == ')'))
    --Close;
  if (Close == From)
    return "";
  int Depth = 0;
  unsigned I = Close;
  while (I > From) {
    --I;
    if (!Code[I])
      continue;
    if (B[I] == ')')
      ++Depth;
    else if (B[I] == '(' && --Depth == 0)
      break;
  }
  unsigned End = I;
  while (End > From && std::isspace((unsigned char)B[End - 1]))
    --End;
  unsigned Begin = End;
  while (Begin > From &&
         (std::isalnum((unsigned char)B[Begin - 1]) || B[Begin - 1] == '_' || B[Begin - 1] == ':'))
    --Begin;
  if (Begin == End)
    return collapseSpace(B.substr(From, I - From)); // operator() and the like
  return B.substr(Begin, End - Begin).str();
}

} // namespace

std::vector<NamedRegion> functionRegions(llvm::StringRef Buffer, const ScanResult &Scan) {
  std::vector<bool> Code = codeMask(Buffer);
  std::vector<BracePair> Pairs = bracePairs(Buffer, Code); // nested, sorted by opening brace
  // Each annotation belongs to the outermost pair around it that heads a function. The pairs
  // around an annotation form a chain, so that pair is found per pair once (in opening order,
  // parents first) and per annotation by a sweep, not by testing every pair.
  std::vector<long> Parent(Pairs.size(), -1), OuterFunction(Pairs.size(), -1);
  std::vector<unsigned> HeaderFrom(Pairs.size());
  std::vector<std::string> Names(Pairs.size());
  std::vector<long> Open;
  for (size_t P = 0; P < Pairs.size(); ++P) {
    while (!Open.empty() && Pairs[Open.back()].Close < Pairs[P].Open)
      Open.pop_back();
    Parent[P] = Open.empty() ? -1 : Open.back();
    Open.push_back(P);
    if (Parent[P] >= 0 && OuterFunction[Parent[P]] >= 0) {
      OuterFunction[P] = OuterFunction[Parent[P]];
      continue;
    }
    HeaderFrom[P] = headerStart(Buffer, Code, Pairs[P].Open);
    Names[P] = functionName(Buffer, Code, HeaderFrom[P], Pairs[P].Open);
    OuterFunction[P] = Names[P].empty() ? -1 : static_cast<long>(P);
  }
  std::vector<size_t> ByOffset(Scan.Annotations.size());
  for (size_t I = 0; I < ByOffset.size(); ++I)
    ByOffset[I] = I;
  std::stable_sort(ByOffset.begin(), ByOffset.end(), [&](size_t A, size_t B) {
    return Scan.Annotations[A].MacroOffset < Scan.Annotations[B].MacroOffset;
  });
  std::vector<long> Innermost(Scan.Annotations.size(), -1);
  Open.clear();
  size_t Next = 0;
  for (size_t I : ByOffset) {
    unsigned At = Scan.Annotations[I].MacroOffset;
    for (; Next < Pairs.size() && Pairs[Next].Open < At; ++Next) {
      while (!Open.empty() && Pairs[Open.back()].Close < Pairs[Next].Open)
        Open.pop_back();
      Open.push_back(Next);
    }
    while (!Open.empty() && Pairs[Open.back()].Close <= At)
      Open.pop_back();
    Innermost[I] = Open.empty() ? -1 : Open.back();
  }
  std::vector<NamedRegion> Regions;
  llvm::DenseSet<long> Known;
  for (size_t I = 0; I < Scan.Annotations.size(); ++I) {
    long P = Innermost[I] < 0 ? -1 : OuterFunction[Innermost[I]];
    if (P >= 0 && Known.insert(P).second)
      Regions.push_back({ChangedRegion::Function, Names[P], {HeaderFrom[P], Pairs[P].Close + 1}});
  }
  return Regions;
}

std::vector<NamedRegion> tracedRegions(llvm::StringRef Buffer, const TracedPlan &Plan,
                                       const SourceModel &Model) {
  std::vector<bool> Code = codeMask(Buffer);
  LineIndex Lines(Buffer);
  llvm::DenseSet<unsigned> Edited(Plan.EditedLaunches.begin(), Plan.EditedLaunches.end());
  std::vector<NamedRegion> Regions;
  for (const auto &[Name, Body] : Plan.KernelSpans)
    if (Body.End > Body.Begin)
      Regions.push_back(
          {ChangedRegion::Kernel, Name, {headerStart(Buffer, Code, Body.Begin), Body.End}});
  for (const LaunchSite &L : Model.Launches) {
    if (!Edited.contains(L.Offset))
      continue;
    std::string Callee = L.Kernel >= 0 ? Model.Kernels[L.Kernel].QualifiedName
                                       : (L.ViaLaunchApi ? L.ApiFunction : "kernel pointer");
    Regions.push_back({ChangedRegion::LaunchSite,
                       Callee + (L.ViaLaunchApi ? "()" : "<<<>>>") + " at line " +
                           std::to_string(Lines.line(L.Offset)),
                       {L.Offset, L.ArgsEnd + 1}});
  }
  return Regions;
}

// ---------------------------------------------------------------------------------------------
// Cutting the change into regions

namespace {

struct WorkRegion {
  ChangedRegion::Kind What;
  std::string Name;
  unsigned Begin, End; // whole lines
  std::vector<size_t> Edits;
};

/// Just past the line holding Offset (its newline included).
unsigned lineEndAt(const LineIndex &Lines, llvm::StringRef B, unsigned Offset) {
  unsigned NL = Lines.lineEnd(Offset);
  return NL < B.size() ? NL + 1 : static_cast<unsigned>(B.size());
}

unsigned lastByte(const Span &S) { return S.End > S.Begin ? S.End - 1 : S.Begin; }

/// Within each run of changed lines, removed lines before added ones, as diff -u shows them.
std::vector<DiffLine> removedFirst(std::vector<DiffLine> Lines) {
  for (size_t K = 0; K < Lines.size();) {
    size_t End = K;
    while (End < Lines.size() && Lines[End].What != DiffLine::Same)
      ++End;
    std::stable_partition(Lines.begin() + K, Lines.begin() + End,
                          [](const DiffLine &D) { return D.What == DiffLine::Removed; });
    K = End == K ? K + 1 : End;
  }
  return Lines;
}

} // namespace

std::vector<ChangedRegion> describeChanges(llvm::StringRef Before, std::vector<Edit> Edits,
                                           const std::vector<NamedRegion> &Named) {
  std::stable_sort(Edits.begin(), Edits.end(),
                   [](const Edit &A, const Edit &B) { return A.Range.Begin < B.Range.Begin; });
  LineIndex Lines(Before);
  std::vector<WorkRegion> Work;
  // Accepted regions never overlap each other, so one neighbour decides an overlap.
  std::map<unsigned, unsigned> Taken; // Begin -> End, non-empty accepted regions
  std::set<unsigned> TakenEmpty;      // Begin of empty accepted regions
  for (const NamedRegion &N : Named) {
    unsigned B = Lines.lineStart(N.Range.Begin), E = lineEndAt(Lines, Before, lastByte(N.Range));
    auto Below = Taken.lower_bound(E);
    bool Overlaps = (Below != Taken.begin() && B < std::prev(Below)->second) ||
                    TakenEmpty.upper_bound(B) != TakenEmpty.lower_bound(E);
    if (Overlaps) // a launch inside a kernel already shown, say
      continue;
    Work.push_back({N.What, N.Name, B, E, {}});
    if (B < E)
      Taken[B] = E;
    else
      TakenEmpty.insert(B);
  }
  // Each edit goes to the first region (in Work order) holding it, else the first it touches.
  // Edits come sorted by start, so a region ending before an edit starts is done for good, and
  // one starting after the edit ends cannot hold it yet: only the regions in between are tried.
  std::vector<size_t> ByBegin(Work.size());
  for (size_t W = 0; W < Work.size(); ++W)
    ByBegin[W] = W;
  std::stable_sort(ByBegin.begin(), ByBegin.end(),
                   [&](size_t A, size_t B) { return Work[A].Begin < Work[B].Begin; });
  std::set<size_t> Live;
  size_t NextLive = 0;
  std::vector<size_t> Outside;
  for (size_t I = 0; I < Edits.size(); ++I) {
    const Span &R = Edits[I].Range;
    for (; NextLive < ByBegin.size() && Work[ByBegin[NextLive]].Begin <= R.End; ++NextLive)
      Live.insert(ByBegin[NextLive]);
    WorkRegion *Holder = nullptr;
    for (auto It = Live.begin(); It != Live.end() && !Holder;) {
      WorkRegion &W = Work[*It];
      if (W.End < R.Begin) {
        It = Live.erase(It);
        continue;
      }
      if (W.Begin <= R.Begin && R.End <= W.End)
        Holder = &W;
      ++It;
    }
    for (auto It = Live.begin(); It != Live.end() && !Holder; ++It) // straddling: widens it
      if (R.Begin < Work[*It].End && Work[*It].Begin < R.End)
        Holder = &Work[*It];
    if (!Holder) {
      Outside.push_back(I);
      continue;
    }
    Holder->Begin = std::min(Holder->Begin, Lines.lineStart(R.Begin));
    Holder->End = std::max(Holder->End, lineEndAt(Lines, Before, lastByte(R)));
    Holder->Edits.push_back(I);
  }
  // Outside edits are sorted too: only the latest file-scope region can still touch the next.
  long LastFileScope = -1;
  for (size_t I : Outside) {
    const Span &R = Edits[I].Range;
    unsigned B = Lines.lineStart(R.Begin), E = lineEndAt(Lines, Before, lastByte(R));
    if (LastFileScope >= 0 && B <= Work[LastFileScope].End && Work[LastFileScope].Begin <= E) {
      Work[LastFileScope].End = std::max(Work[LastFileScope].End, E);
      Work[LastFileScope].Edits.push_back(I);
    } else {
      Work.push_back(
          {ChangedRegion::FileScope, "line " + std::to_string(Lines.line(B)), B, E, {I}});
      LastFileScope = static_cast<long>(Work.size()) - 1;
    }
  }
  Work.erase(
      std::remove_if(Work.begin(), Work.end(), [](const WorkRegion &W) { return W.Edits.empty(); }),
      Work.end());
  std::sort(Work.begin(), Work.end(),
            [](const WorkRegion &A, const WorkRegion &B) { return A.Begin < B.Begin; });

  // Lines each edit adds, and their running sum in order of where the edits end, so that the
  // lines added before a region are one lookup.
  std::vector<long> LinesAdded(Edits.size());
  for (size_t I = 0; I < Edits.size(); ++I)
    LinesAdded[I] =
        static_cast<long>(std::count(Edits[I].Text.begin(), Edits[I].Text.end(), '\n')) -
        static_cast<long>(Lines.newlinesIn(Edits[I].Range.Begin, Edits[I].Range.End));
  std::vector<size_t> ByEnd(Edits.size());
  for (size_t I = 0; I < Edits.size(); ++I)
    ByEnd[I] = I;
  std::stable_sort(ByEnd.begin(), ByEnd.end(),
                   [&](size_t A, size_t B) { return Edits[A].Range.End < Edits[B].Range.End; });
  std::vector<long> AddedUpTo(Edits.size() + 1, 0); // over the first k edits by end
  for (size_t K = 0; K < ByEnd.size(); ++K)
    AddedUpTo[K + 1] = AddedUpTo[K] + LinesAdded[ByEnd[K]];

  std::vector<ChangedRegion> Out;
  for (const WorkRegion &W : Work) {
    ChangedRegion C;
    C.What = W.What;
    C.Name = W.Name;
    C.Before = Before.substr(W.Begin, W.End - W.Begin).str();
    unsigned Pos = W.Begin;
    for (size_t I : W.Edits) {
      C.After.append(Before.begin() + Pos, Before.begin() + Edits[I].Range.Begin);
      C.After += Edits[I].Text;
      Pos = Edits[I].Range.End;
    }
    C.After.append(Before.begin() + Pos, Before.begin() + W.End);
    // Where the region starts in the output: every other edit ending at or before it moved it.
    size_t EndedBefore =
        std::upper_bound(ByEnd.begin(), ByEnd.end(), W.Begin,
                         [&](unsigned At, size_t I) { return At < Edits[I].Range.End; }) -
        ByEnd.begin();
    long NewlinesBefore = static_cast<long>(Lines.newlinesBefore(W.Begin)) + AddedUpTo[EndedBefore];
    for (size_t I : W.Edits)
      if (Edits[I].Range.End <= W.Begin)
        NewlinesBefore -= LinesAdded[I];
    C.OldFirstLine = Lines.line(W.Begin);
    C.NewFirstLine = 1 + NewlinesBefore;
    C.Lines = removedFirst(diffLines(C.Before, C.After));
    for (DiffLine &D : C.Lines) {
      if (D.OldLine)
        D.OldLine += C.OldFirstLine - 1;
      if (D.NewLine)
        D.NewLine += C.NewFirstLine - 1;
      C.Added += D.What == DiffLine::Added;
      C.Removed += D.What == DiffLine::Removed;
    }
    Out.push_back(std::move(C));
  }
  return Out;
}

std::vector<Hunk> groupHunks(const std::vector<DiffLine> &Lines, unsigned Context) {
  std::vector<size_t> Changes;
  for (size_t K = 0; K < Lines.size(); ++K)
    if (Lines[K].What != DiffLine::Same)
      Changes.push_back(K);
  std::vector<Hunk> Hunks;
  for (size_t C = 0; C < Changes.size();) {
    size_t Last = C;
    while (Last + 1 < Changes.size() && Changes[Last + 1] - Changes[Last] <= 2 * Context)
      ++Last;
    Hunk H;
    H.Begin = Changes[C] >= Context ? Changes[C] - Context : 0;
    H.End = std::min(Lines.size(), Changes[Last] + Context + 1);
    for (size_t K = H.Begin; K < H.End; ++K) {
      const DiffLine &D = Lines[K];
      if (D.What != DiffLine::Added && !H.OldCount++)
        H.OldStart = D.OldLine;
      if (D.What != DiffLine::Removed && !H.NewCount++)
        H.NewStart = D.NewLine;
    }
    // An empty side names the line before it, as diff -u does.
    for (size_t K = H.Begin; K-- > 0 && (!H.OldCount || !H.NewCount);) {
      if (!H.OldCount && Lines[K].OldLine && !H.OldStart)
        H.OldStart = Lines[K].OldLine;
      if (!H.NewCount && Lines[K].NewLine && !H.NewStart)
        H.NewStart = Lines[K].NewLine;
      if ((H.OldCount || H.OldStart) && (H.NewCount || H.NewStart))
        break;
    }
    Hunks.push_back(H);
    C = Last + 1;
  }
  return Hunks;
}

} // namespace cutrace
