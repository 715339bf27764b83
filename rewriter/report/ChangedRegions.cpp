#include "report/ChangedRegions.h"

#include <algorithm>
#include <cctype>

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

unsigned lineOf(llvm::StringRef B, unsigned Offset) {
  return 1 + std::count(B.begin(), B.begin() + std::min<size_t>(Offset, B.size()), '\n');
}

} // namespace

std::vector<NamedRegion> functionRegions(llvm::StringRef Buffer, const ScanResult &Scan) {
  std::vector<bool> Code = codeMask(Buffer);
  std::vector<BracePair> Pairs = bracePairs(Buffer, Code);
  std::vector<NamedRegion> Regions;
  for (const Annotation &A : Scan.Annotations) {
    for (const BracePair &P : Pairs) { // outermost first: sorted by opening brace
      if (!(P.Open < A.MacroOffset && A.MacroOffset < P.Close))
        continue;
      unsigned From = headerStart(Buffer, Code, P.Open);
      std::string Name = functionName(Buffer, Code, From, P.Open);
      if (Name.empty())
        continue;
      bool Known = std::any_of(Regions.begin(), Regions.end(),
                               [&](const NamedRegion &R) { return R.Range.Begin == From; });
      if (!Known)
        Regions.push_back({ChangedRegion::Function, Name, {From, P.Close + 1}});
      break;
    }
  }
  return Regions;
}

std::vector<NamedRegion> tracedRegions(llvm::StringRef Buffer, const TracedPlan &Plan,
                                       const SourceModel &Model) {
  std::vector<bool> Code = codeMask(Buffer);
  std::vector<NamedRegion> Regions;
  for (const auto &[Name, Body] : Plan.KernelSpans)
    if (Body.End > Body.Begin)
      Regions.push_back(
          {ChangedRegion::Kernel, Name, {headerStart(Buffer, Code, Body.Begin), Body.End}});
  for (const LaunchSite &L : Model.Launches) {
    bool Edited = std::any_of(Plan.Edits.begin(), Plan.Edits.end(), [&](const Edit &E) {
      return E.Range.Begin == L.ArgsEnd && E.Range.End == L.ArgsEnd;
    });
    if (!Edited || L.Kernel < 0)
      continue;
    Regions.push_back({ChangedRegion::LaunchSite,
                       Model.Kernels[L.Kernel].QualifiedName + "<<<>>> at line " +
                           std::to_string(lineOf(Buffer, L.Offset)),
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

unsigned lineStartAt(llvm::StringRef B, unsigned Offset) {
  size_t NL = B.substr(0, Offset).rfind('\n');
  return NL == llvm::StringRef::npos ? 0 : NL + 1;
}

/// Just past the line holding Offset (its newline included).
unsigned lineEndAt(llvm::StringRef B, unsigned Offset) {
  size_t NL = B.find('\n', Offset);
  return NL == llvm::StringRef::npos ? B.size() : NL + 1;
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
  std::vector<WorkRegion> Work;
  for (const NamedRegion &N : Named) {
    unsigned B = lineStartAt(Before, N.Range.Begin), E = lineEndAt(Before, lastByte(N.Range));
    bool Overlaps = std::any_of(Work.begin(), Work.end(),
                                [&](const WorkRegion &W) { return B < W.End && W.Begin < E; });
    if (!Overlaps) // a launch inside a kernel already shown, say
      Work.push_back({N.What, N.Name, B, E, {}});
  }
  std::vector<size_t> Outside;
  for (size_t I = 0; I < Edits.size(); ++I) {
    const Span &R = Edits[I].Range;
    auto Holder = std::find_if(Work.begin(), Work.end(), [&](const WorkRegion &W) {
      return W.Begin <= R.Begin && R.End <= W.End;
    });
    if (Holder == Work.end()) // an edit that straddles a region's edge widens it
      Holder = std::find_if(Work.begin(), Work.end(), [&](const WorkRegion &W) {
        return R.Begin < W.End && W.Begin < R.End;
      });
    if (Holder == Work.end()) {
      Outside.push_back(I);
      continue;
    }
    Holder->Begin = std::min(Holder->Begin, lineStartAt(Before, R.Begin));
    Holder->End = std::max(Holder->End, lineEndAt(Before, lastByte(R)));
    Holder->Edits.push_back(I);
  }
  for (size_t I : Outside) {
    const Span &R = Edits[I].Range;
    unsigned B = lineStartAt(Before, R.Begin), E = lineEndAt(Before, lastByte(R));
    WorkRegion *Last = nullptr;
    for (WorkRegion &W : Work)
      if (W.What == ChangedRegion::FileScope && B <= W.End && W.Begin <= E)
        Last = &W;
    if (Last) {
      Last->End = std::max(Last->End, E);
      Last->Edits.push_back(I);
    } else {
      Work.push_back(
          {ChangedRegion::FileScope, "line " + std::to_string(lineOf(Before, B)), B, E, {I}});
    }
  }
  Work.erase(
      std::remove_if(Work.begin(), Work.end(), [](const WorkRegion &W) { return W.Edits.empty(); }),
      Work.end());
  std::sort(Work.begin(), Work.end(),
            [](const WorkRegion &A, const WorkRegion &B) { return A.Begin < B.Begin; });

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
    long NewlinesBefore = std::count(Before.begin(), Before.begin() + W.Begin, '\n');
    for (size_t I = 0; I < Edits.size(); ++I) {
      bool Mine = std::find(W.Edits.begin(), W.Edits.end(), I) != W.Edits.end();
      if (Mine || Edits[I].Range.End > W.Begin)
        continue;
      llvm::StringRef Removed = Before.substr(Edits[I].Range.Begin, Edits[I].Range.size());
      NewlinesBefore += std::count(Edits[I].Text.begin(), Edits[I].Text.end(), '\n') -
                        std::count(Removed.begin(), Removed.end(), '\n');
    }
    C.OldFirstLine = lineOf(Before, W.Begin);
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
