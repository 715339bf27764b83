#include "strip/Strip.h"

#include "lex/LineIndex.h"
#include <algorithm>

namespace cutrace {
namespace {

bool isHorizontalSpace(char C) { return C == ' ' || C == '\t' || C == '\f' || C == '\v'; }

/// Annotations whose lines touch are decided together: a line is deleted whole only if nothing
/// but annotations, whitespace and a trailing // comment is left on it.
struct LineCluster {
  unsigned Begin, End; // first line's start, last line's '\n' (or buffer end)
  std::vector<Span> Statements;
};

std::vector<LineCluster> clusterByLines(const LineIndex &Lines, const std::vector<Span> &Sorted) {
  std::vector<LineCluster> Clusters;
  for (const Span &S : Sorted) {
    unsigned Begin = Lines.lineStart(S.Begin);
    unsigned End = Lines.lineEnd(S.End == S.Begin ? S.End : S.End - 1);
    if (!Clusters.empty() && Begin <= Clusters.back().End) {
      Clusters.back().End = std::max(Clusters.back().End, End);
      Clusters.back().Statements.push_back(S);
    } else {
      Clusters.push_back({Begin, End, {S}});
    }
  }
  return Clusters;
}

/// The cluster's text with its annotation statements blanked out.
std::string residue(llvm::StringRef Buffer, const LineCluster &C) {
  std::string Text = Buffer.substr(C.Begin, C.End - C.Begin).str();
  for (const Span &S : C.Statements)
    std::fill(Text.begin() + (S.Begin - C.Begin), Text.begin() + (S.End - C.Begin), ' ');
  return Text;
}

/// True when the line ending at Newline (a '\n', a '\r', or the buffer's end) ends in a line
/// splice: a backslash, then only horizontal space (which Clang and GCC also accept), then the
/// newline.
bool endsWithSplice(llvm::StringRef Buffer, unsigned Newline) {
  if (Newline >= Buffer.size())
    return false;
  unsigned Back = Newline;
  if (Buffer[Back] == '\n' && Back > 0 && Buffer[Back - 1] == '\r')
    --Back;
  while (Back > 0 && isHorizontalSpace(Buffer[Back - 1]))
    --Back;
  return Back > 0 && Buffer[Back - 1] == '\\';
}

/// Where a // comment that starts at Begin ends: the first line end not spliced to the next
/// line. A lone '\r' ends a line for the lexer (and the comment with it), as '\n' does.
size_t lineCommentEnd(llvm::StringRef Text, size_t Begin) {
  for (size_t NL = Text.find_first_of("\r\n", Begin); NL != llvm::StringRef::npos;
       NL = Text.find_first_of("\r\n", NL + 1)) {
    if (Text[NL] == '\r' && NL + 1 < Text.size() && Text[NL + 1] == '\n')
      ++NL; // CRLF: one line end, judged at its '\n'
    if (!endsWithSplice(Text, static_cast<unsigned>(NL)))
      return NL;
  }
  return llvm::StringRef::npos;
}

/// True when the residue holds only whitespace and comments that close on these lines: a
/// comment beside an annotation is about the annotation and goes with it.
bool onlySpaceAndComments(llvm::StringRef Residue) {
  for (;;) {
    Residue = Residue.ltrim(" \t\f\v\r\n");
    if (Residue.empty())
      return true;
    if (Residue.starts_with("//")) {
      size_t NL = lineCommentEnd(Residue, 0);
      if (NL == llvm::StringRef::npos)
        return true;
      Residue = Residue.substr(NL);
    } else if (Residue.starts_with("/*")) {
      size_t Close = Residue.find("*/", 2);
      if (Close == llvm::StringRef::npos)
        return false;
      Residue = Residue.substr(Close + 2);
    } else {
      return false;
    }
  }
}

void deleteWholeLines(llvm::StringRef Buffer, const LineCluster &C, std::vector<Span> &Out) {
  if (C.End < Buffer.size()) {
    Out.push_back({C.Begin, C.End + 1});
    return;
  }
  // Last line without a final newline: take the previous line's terminator so the file still
  // ends without one.
  unsigned Begin = C.Begin;
  if (Begin > 0) {
    --Begin;
    if (Begin > 0 && Buffer[Begin - 1] == '\r')
      --Begin;
  }
  Out.push_back({Begin, C.End});
}

void deleteInline(llvm::StringRef Buffer, const LineIndex &Lines, const LineCluster &C,
                  llvm::StringRef Residue, std::vector<Span> &Out) {
  // Whether code precedes a statement on its line, found by one pass over each line: statements
  // are sorted, so the scan resumes where the previous statement's stopped.
  unsigned Line = ~0u, Scanned = 0;
  bool CodeBefore = false;
  for (const Span &S : C.Statements) {
    unsigned LineBegin = std::max(Lines.lineStart(S.Begin), C.Begin);
    if (LineBegin != Line) {
      Line = Scanned = LineBegin;
      CodeBefore = false;
    }
    for (; Scanned < S.Begin && !CodeBefore; ++Scanned)
      CodeBefore = !llvm::StringRef(" \t\n\v\f\r").contains(Residue[Scanned - C.Begin]);
    if (CodeBefore) {
      unsigned Begin = S.Begin;
      while (Begin > LineBegin && isHorizontalSpace(Buffer[Begin - 1]))
        --Begin;
      // `lbl: TRACE_RECORD("a");::f();` must not become `lbl:::f();` (nor `:` + `>` the digraph
      // `:>`): a space that separated them stays, or else the statement's ';' does.
      unsigned End = S.End;
      if (Begin > 0 && Buffer[Begin - 1] == ':' && End < Buffer.size() &&
          (Buffer[End] == ':' || Buffer[End] == '>')) {
        if (Begin < S.Begin)
          ++Begin;
        else if (Buffer[End - 1] == ';')
          --End;
      }
      Out.push_back({Begin, End});
    } else {
      unsigned End = S.End;
      while (End < Buffer.size() && isHorizontalSpace(Buffer[End]))
        ++End;
      Out.push_back({S.Begin, End});
    }
  }
}

std::vector<Span> mergeSorted(std::vector<Span> Spans) {
  std::sort(Spans.begin(), Spans.end(),
            [](const Span &A, const Span &B) { return A.Begin < B.Begin; });
  std::vector<Span> Merged;
  for (const Span &S : Spans) {
    if (!Merged.empty() && S.Begin <= Merged.back().End)
      Merged.back().End = std::max(Merged.back().End, S.End);
    else
      Merged.push_back(S);
  }
  return Merged;
}

} // namespace

std::vector<Span> planStripDeletions(llvm::StringRef Buffer, std::vector<Span> Statements) {
  Statements = mergeSorted(std::move(Statements));
  LineIndex Lines(Buffer);
  std::vector<Span> Deletions;
  std::vector<LineCluster> Clusters = clusterByLines(Lines, Statements);
  // A UTF-8 byte-order mark belongs to the file, not to its first line: it stays when that line
  // goes.
  if (!Clusters.empty() && Buffer.starts_with("\xEF\xBB\xBF"))
    Clusters.front().Begin = std::max(Clusters.front().Begin, 3u);
  for (const LineCluster &C : Clusters) {
    std::string Residue = residue(Buffer, C);
    // A splice at the end of the cluster's last line (a `// comment \`) joins the next line to
    // it, and one at the end of the line before joins it to the cluster: deleting the whole
    // lines would move code into or out of a comment or a directive. Only the statements go.
    bool Spliced = endsWithSplice(Buffer, C.End) || (C.Begin > 0 && Buffer[C.Begin - 1] == '\n' &&
                                                     endsWithSplice(Buffer, C.Begin - 1));
    if (!Spliced && onlySpaceAndComments(Residue))
      deleteWholeLines(Buffer, C, Deletions);
    else
      deleteInline(Buffer, Lines, C, Residue, Deletions);
  }
  return mergeSorted(std::move(Deletions));
}

std::string applyDeletions(llvm::StringRef Buffer, const std::vector<Span> &Deletions) {
  std::string Out;
  Out.reserve(Buffer.size());
  unsigned Pos = 0;
  for (const Span &D : Deletions) {
    Out.append(Buffer.begin() + Pos, Buffer.begin() + D.Begin);
    Pos = D.End;
  }
  Out.append(Buffer.begin() + Pos, Buffer.end());
  return Out;
}

std::vector<Span> strippedStatements(const ScanResult &Scan) {
  std::vector<Span> Statements = Scan.IncludeDirectives;
  for (const Annotation &A : Scan.Annotations)
    Statements.push_back(A.Statement);
  return Statements;
}

std::string stripAnnotations(llvm::StringRef Buffer, const ScanResult &Scan) {
  return applyDeletions(Buffer, planStripDeletions(Buffer, strippedStatements(Scan)));
}

} // namespace cutrace
