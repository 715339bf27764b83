#include "AnnotationScanner.h"

#include "clang/Basic/LangOptions.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

namespace cutrace {
namespace {

struct RawToken {
  clang::tok::TokenKind Kind;
  unsigned Offset;
  unsigned Length;
  llvm::StringRef Text;
  bool InDirective;
  bool StartsLine;
  unsigned Depth;        // brace depth before this token (directives excluded)
  int MatchingOpen = -1; // for ')', index of its '('

  unsigned end() const { return Offset + Length; }
  bool isIdentifier(llvm::StringRef Name) const {
    return Kind == clang::tok::raw_identifier && Text == Name;
  }
};

clang::LangOptions cudaLangOptions() {
  clang::LangOptions Opts;
  Opts.CPlusPlus = Opts.CPlusPlus11 = Opts.CPlusPlus14 = Opts.CPlusPlus17 = 1;
  Opts.CUDA = 1;
  Opts.LineComment = 1;
  Opts.Digraphs = 1;
  Opts.Bool = 1;
  return Opts;
}

/// Every token of the buffer, as a raw lexer sees it: no preprocessing, all branches.
std::vector<RawToken> lexAll(llvm::StringRef Buffer) {
  clang::LangOptions Opts = cudaLangOptions();
  const clang::SourceLocation Base = clang::SourceLocation::getFromRawEncoding(1);
  clang::Lexer Lex(Base, Opts, Buffer.begin(), Buffer.begin(), Buffer.end());
  std::vector<RawToken> Tokens;
  std::vector<int> OpenParens;
  bool InDirective = false;
  unsigned Depth = 0;
  clang::Token Tok;
  while (!Lex.LexFromRawLexer(Tok) || Tok.isNot(clang::tok::eof)) {
    if (Tok.is(clang::tok::eof))
      break;
    unsigned Offset = Tok.getLocation().getRawEncoding() - Base.getRawEncoding();
    if (Tok.isAtStartOfLine())
      InDirective = Tok.is(clang::tok::hash);
    RawToken T{Tok.getKind(),
               Offset,
               Tok.getLength(),
               Buffer.substr(Offset, Tok.getLength()),
               InDirective,
               Tok.isAtStartOfLine(),
               Depth};
    if (!InDirective) {
      if (T.Kind == clang::tok::l_brace)
        ++Depth;
      else if (T.Kind == clang::tok::r_brace && Depth > 0)
        --Depth;
      else if (T.Kind == clang::tok::l_paren)
        OpenParens.push_back(static_cast<int>(Tokens.size()));
      else if (T.Kind == clang::tok::r_paren && !OpenParens.empty()) {
        T.MatchingOpen = OpenParens.back();
        OpenParens.pop_back();
      }
    }
    Tokens.push_back(T);
  }
  return Tokens;
}

/// An identifier as the compiler reads it: backslash-newline splices (phase 2) removed.
std::string withoutLineSplices(llvm::StringRef Spelled) {
  std::string Out;
  for (size_t I = 0; I < Spelled.size(); ++I) {
    size_t J = I + 1;
    while (Spelled[I] == '\\' && J < Spelled.size() && (Spelled[J] == ' ' || Spelled[J] == '\t'))
      ++J;
    if (Spelled[I] == '\\' && J < Spelled.size() && (Spelled[J] == '\n' || Spelled[J] == '\r')) {
      I = J + (Spelled[J] == '\r' && J + 1 < Spelled.size() && Spelled[J + 1] == '\n');
      continue;
    }
    Out += Spelled[I];
  }
  return Out;
}

bool isMutation(clang::tok::TokenKind K) {
  using namespace clang::tok;
  switch (K) {
  case plusplus:
  case minusminus:
  case equal:
  case plusequal:
  case minusequal:
  case starequal:
  case slashequal:
  case percentequal:
  case ampequal:
  case pipeequal:
  case caretequal:
  case lesslessequal:
  case greatergreaterequal:
    return true;
  default:
    return false;
  }
}

class Scanner {
public:
  explicit Scanner(llvm::StringRef Buffer) : Buffer(Buffer), Tokens(lexAll(Buffer)) {}

  ScanResult run() {
    findBanner();
    for (size_t I = 0; I < Tokens.size(); ++I) {
      const RawToken &T = Tokens[I];
      if (T.InDirective) {
        if (T.Kind == clang::tok::hash && T.StartsLine)
          scanDirective(I);
        continue;
      }
      if (T.Kind != clang::tok::raw_identifier)
        continue;
      if (const AnnotationSpelling *S = findSpelling(T.Text)) {
        if (I + 1 < Tokens.size() && Tokens[I + 1].Kind == clang::tok::l_paren)
          scanAnnotation(*S, I);
      } else if (T.Text.contains('\\') && findSpelling(withoutLineSplices(T.Text))) {
        // The compiler joins the pieces into the macro name; strip and --traced would not.
        report(T.Offset, "annotation name " + withoutLineSplices(T.Text) +
                             " may not be split by a line continuation");
      } else if (AnnotatingMacros.count(T.Text)) {
        report(T.Offset,
               "annotation may not be produced by the expansion of macro '" + T.Text.str() + "'");
      }
    }
    checkTokenUses();
    return std::move(Result);
  }

private:
  llvm::StringRef Buffer;
  std::vector<RawToken> Tokens;
  ScanResult Result;
  llvm::StringSet<> AnnotatingMacros;
  std::vector<std::pair<size_t, size_t>> TokenScopes; // (declaration token, end of block)
  std::vector<size_t> BlockEnds;                      // endOfBlock of every token, built lazily

  void report(unsigned Offset, std::string Message) {
    // Two checks can fail on the same annotation for one reason (no ';' and not a statement).
    if (!Result.Problems.empty() && Result.Problems.back().Offset == Offset &&
        Result.Problems.back().Message == Message)
      return;
    Result.Problems.push_back({Offset, std::move(Message), Severity::Error});
  }

  void findBanner() {
    // The banner follows a byte-order mark when the source had one.
    for (size_t Pos = Buffer.starts_with("\xEF\xBB\xBF") ? 3 : 0; Pos < Buffer.size();) {
      if (Buffer.substr(Pos).starts_with(TracedBanner)) {
        report(Pos, "file contains code generated by trace-rewrite --traced");
        return;
      }
      size_t NL = Buffer.find('\n', Pos);
      if (NL == llvm::StringRef::npos)
        break;
      Pos = NL + 1;
    }
  }

  /// The end of the line holding Offset after line splices: a `// comment \` continues onto the
  /// next line, which is then part of the directive and goes with it.
  unsigned logicalLineEnd(unsigned Offset) const {
    // A lone '\r' ends a line for the lexer too, so it ends the directive here as well.
    for (size_t End = Buffer.find_first_of("\r\n", Offset); End != llvm::StringRef::npos;) {
      size_t Last = End;
      while (Last > Offset && (Buffer[Last - 1] == ' ' || Buffer[Last - 1] == '\t'))
        --Last;
      if (Last == Offset || Buffer[Last - 1] != '\\')
        return static_cast<unsigned>(End);
      size_t Next = End + (Buffer.substr(End).starts_with("\r\n") ? 2 : 1);
      End = Buffer.find_first_of("\r\n", Next);
    }
    return static_cast<unsigned>(Buffer.size());
  }

  size_t directiveEnd(size_t Hash) const {
    size_t J = Hash + 1;
    while (J < Tokens.size() && !Tokens[J].StartsLine)
      ++J;
    return J;
  }

  void scanDirective(size_t Hash) {
    size_t End = directiveEnd(Hash);
    if (Hash + 1 >= End)
      return;
    const RawToken &Name = Tokens[Hash + 1];
    if (Name.isIdentifier("include")) {
      std::string Spelled;
      for (size_t J = Hash + 2; J < End; ++J)
        Spelled += Tokens[J].Text.str();
      if (Spelled == "<cutrace/trace.h>" || Spelled == "\"cutrace/trace.h\"")
        Result.IncludeDirectives.push_back(
            {Tokens[Hash].Offset, logicalLineEnd(Tokens[Hash].Offset)});
    } else if (Name.isIdentifier("define") && Hash + 2 < End) {
      for (size_t J = Hash + 3; J < End; ++J)
        if (Tokens[J].Kind == clang::tok::raw_identifier && findSpelling(Tokens[J].Text))
          AnnotatingMacros.insert(Tokens[Hash + 2].Text);
    }
  }

  /// Index of the closest token before I that is not part of a directive, or -1.
  int previousCodeToken(size_t I) const {
    for (int J = static_cast<int>(I) - 1; J >= 0; --J)
      if (!Tokens[J].InDirective)
        return J;
    return -1;
  }

  size_t nextCodeToken(size_t I) const {
    size_t J = I + 1;
    while (J < Tokens.size() && Tokens[J].InDirective)
      ++J;
    return J;
  }

  void scanAnnotation(const AnnotationSpelling &S, size_t MacroIndex) {
    Annotation A;
    A.Kind = S.Kind;
    A.MacroOffset = Tokens[MacroIndex].Offset;
    // Find the closing parenthesis and the top-level argument boundaries.
    size_t Open = MacroIndex + 1, Close = Open;
    int Depth = 0;
    size_t ArgStart = Open + 1;
    std::vector<clang::tok::TokenKind> Closers; // what each open bracket expects
    std::optional<unsigned> Directive;          // the first one inside the call
    for (size_t J = Open; J < Tokens.size(); ++J) {
      if (Tokens[J].InDirective) {
        if (!Directive && Tokens[J].Kind == clang::tok::hash && Tokens[J].StartsLine)
          Directive = Tokens[J].Offset;
        continue;
      }
      clang::tok::TokenKind K = Tokens[J].Kind;
      // A ';' at the top level or a bracket that closes something else: the ')' is missing.
      bool Closes =
          K == clang::tok::r_paren || K == clang::tok::r_square || K == clang::tok::r_brace;
      if ((K == clang::tok::semi && Depth == 1) ||
          (Closes && (Closers.empty() || Closers.back() != K))) {
        report(Tokens[J].Offset, S.Macro.str() + " is missing its closing parenthesis");
        return;
      }
      if (K == clang::tok::l_paren || K == clang::tok::l_square || K == clang::tok::l_brace) {
        ++Depth;
        Closers.push_back(K == clang::tok::l_paren    ? clang::tok::r_paren
                          : K == clang::tok::l_square ? clang::tok::r_square
                                                      : clang::tok::r_brace);
      } else if (Closes) {
        --Depth;
        Closers.pop_back();
      }
      if (Depth == 0 || (Depth == 1 && K == clang::tok::comma)) {
        // An empty argument (`(,)`, `("a",)`) is an empty span at the separator after it.
        if (J > ArgStart)
          A.Args.push_back({Tokens[ArgStart].Offset, Tokens[J - 1].end()});
        else if (K == clang::tok::comma || !A.Args.empty())
          A.Args.push_back({Tokens[J].Offset, Tokens[J].Offset});
        ArgStart = J + 1;
      }
      if (Depth == 0) {
        Close = J;
        break;
      }
    }
    if (Close == Open) {
      report(A.MacroOffset, S.Macro.str() + " is missing its closing parenthesis");
      return;
    }
    A.Call = {A.MacroOffset, Tokens[Close].end()};
    if (Directive) {
      // Each build would take one branch, strip and the traced build the text of all of them.
      report(*Directive, "preprocessor directive inside " + S.Macro.str() +
                             "(...); an annotation's arguments cannot depend on #if (write one "
                             "annotation in each branch)");
      return;
    }

    size_t First = MacroIndex;
    if (!checkArguments(S, A, Open, Close) || !findStatementStart(S, A, MacroIndex, First))
      return;
    A.Statement = {Tokens[First].Offset, A.Call.End};
    size_t After = nextCodeToken(Close);
    if (After < Tokens.size() && Tokens[After].Kind == clang::tok::semi) {
      A.HasSemicolon = true;
      A.Statement.End = Tokens[After].end();
      llvm::StringRef Rest = Buffer.substr(A.Statement.End).ltrim(" \t");
      if (Rest.starts_with("#"))
        report(A.Statement.End + (Buffer.substr(A.Statement.End).size() - Rest.size()),
               "'#' right after an annotation would start a preprocessor directive once strip "
               "removes the annotation; put it on a line of its own");
    } else {
      report(A.MacroOffset, "annotation must be a whole statement inside a function body");
    }
    checkStatementPosition(A, First);
    if (A.Kind == AnnotationKind::RangeStart)
      TokenScopes.push_back({First, endOfBlock(First)});
    Result.Annotations.push_back(std::move(A));
  }

  bool checkArguments(const AnnotationSpelling &S, Annotation &A, size_t Open, size_t Close) {
    if (A.Args.size() < S.MinArgs || A.Args.size() > S.MaxArgs) {
      std::string Count =
          S.MinArgs == S.MaxArgs
              ? std::to_string(S.MinArgs) + (S.MinArgs == 1 ? " argument" : " arguments")
              : std::to_string(S.MinArgs) + " to " + std::to_string(S.MaxArgs) + " arguments";
      report(A.MacroOffset, S.Macro.str() + " takes " + Count);
      return false;
    }
    for (size_t I = 0; I < A.Args.size(); ++I) {
      ArgRole Role = S.Roles[I];
      std::vector<const RawToken *> ArgTokens = tokensIn(A.Args[I], Open, Close);
      if (ArgTokens.empty()) {
        report(A.Args[I].Begin, roleName(Role).str() + " of " + S.Macro.str() + " is empty");
        return false;
      }
      switch (Role) {
      case ArgRole::Name:
      case ArgRole::Lane:
      case ArgRole::Source:
      case ArgRole::Destination:
        for (const RawToken *T : ArgTokens)
          if (!clang::tok::isStringLiteral(T->Kind)) {
            report(A.Args[I].Begin,
                   roleName(Role).str() + " of " + S.Macro.str() + " must be a string literal");
            break;
          } else if (T->Kind != clang::tok::string_literal &&
                     T->Kind != clang::tok::utf8_string_literal) {
            report(A.Args[I].Begin,
                   roleName(Role).str() + " of " + S.Macro.str() +
                       " must be a plain or u8 string literal (L, u and U literals "
                       "are not accepted)");
            break;
          }
        break;
      case ArgRole::Payload:
      case ArgRole::Lead:
      case ArgRole::Condition:
      case ArgRole::Size:
      case ArgRole::First:
        for (const RawToken *T : ArgTokens)
          if (isMutation(T->Kind)) {
            report(A.Args[I].Begin, roleName(Role).str() + " of " + S.Macro.str() +
                                        " has side effects (stripping would change behaviour)");
            break;
          }
        break;
      case ArgRole::Token:
        if (ArgTokens.size() != 1 || ArgTokens[0]->Kind != clang::tok::raw_identifier) {
          report(A.Args[I].Begin, "token of TRACE_RANGE_END must be a variable declared by "
                                  "TRACE_RANGE_START");
          return false;
        }
        A.TokenName = ArgTokens[0]->Text.str();
        A.TokenNameOffset = ArgTokens[0]->Offset;
        break;
      }
    }
    return true;
  }

  std::vector<const RawToken *> tokensIn(Span S, size_t From, size_t To) const {
    std::vector<const RawToken *> Out;
    for (size_t J = From; J <= To; ++J)
      if (!Tokens[J].InDirective && Tokens[J].Offset >= S.Begin && Tokens[J].end() <= S.End)
        Out.push_back(&Tokens[J]);
    return Out;
  }

  /// For TRACE_RANGE_START the statement is the declaration `[const] auto tok = ...`.
  bool findStatementStart(const AnnotationSpelling &S, Annotation &A, size_t MacroIndex,
                          size_t &First) {
    if (S.Kind != AnnotationKind::RangeStart)
      return true;
    int Eq = previousCodeToken(MacroIndex);
    int Name = Eq < 0 ? -1 : previousCodeToken(Eq);
    int Auto = Name < 0 ? -1 : previousCodeToken(Name);
    if (Auto >= 0 && Tokens[Auto].isIdentifier("const"))
      Auto = previousCodeToken(Auto); // `auto const tok`
    bool Ok = Eq >= 0 && Tokens[Eq].Kind == clang::tok::equal && Name >= 0 &&
              Tokens[Name].Kind == clang::tok::raw_identifier && Auto >= 0 &&
              Tokens[Auto].isIdentifier("auto");
    if (!Ok) {
      report(A.MacroOffset, "TRACE_RANGE_START must initialize a declaration "
                            "'auto tok = TRACE_RANGE_START(...);'");
      return false;
    }
    A.TokenName = Tokens[Name].Text.str();
    A.TokenNameOffset = Tokens[Name].Offset;
    First = Auto;
    int Const = previousCodeToken(Auto);
    if (Const >= 0 && Tokens[Const].isIdentifier("const"))
      First = Const;
    return true;
  }

  void checkStatementPosition(const Annotation &A, size_t First) {
    int Prev = previousCodeToken(First);
    if (Tokens[First].Depth == 0 || Prev < 0) {
      report(A.MacroOffset, "annotation must be a whole statement inside a function body");
      return;
    }
    const RawToken &P = Tokens[Prev];
    std::string Owner;
    if (P.isIdentifier("else") || P.isIdentifier("do"))
      Owner = P.Text.str();
    else if (P.Kind == clang::tok::r_paren && P.MatchingOpen >= 0) {
      // The '(' may be the first code token of the file (only directives before it).
      int Keyword = previousCodeToken(P.MatchingOpen);
      for (llvm::StringRef Kw : {"if", "for", "while", "switch"})
        if (Keyword >= 0 && Tokens[Keyword].isIdentifier(Kw))
          Owner = Kw.str();
      if (Owner.empty()) {
        report(A.MacroOffset, "annotation must be a whole statement inside a function body");
        return;
      }
    } else if (P.Kind != clang::tok::semi && P.Kind != clang::tok::l_brace &&
               P.Kind != clang::tok::r_brace && P.Kind != clang::tok::colon) {
      report(A.MacroOffset, "annotation must be a whole statement inside a function body");
      return;
    }
    if (!Owner.empty())
      report(A.MacroOffset, "annotation may not be the sole, unbraced body of '" + Owner + "'");
  }

  /// The first '}' at or after I closing I's depth, from a table built once: a scan per
  /// TRACE_RANGE_START would be quadratic in a block holding many of them.
  size_t endOfBlock(size_t I) {
    if (BlockEnds.empty()) {
      BlockEnds.resize(Tokens.size());
      std::vector<size_t> NextClose; // by depth: the nearest '}' at or after the current token
      for (size_t J = Tokens.size(); J-- > 0;) {
        const RawToken &T = Tokens[J];
        if (NextClose.size() <= T.Depth)
          NextClose.resize(T.Depth + 1, Tokens.size());
        if (!T.InDirective && T.Kind == clang::tok::r_brace)
          NextClose[T.Depth] = J;
        BlockEnds[J] = NextClose[T.Depth];
      }
    }
    return BlockEnds[I];
  }

  /// A token's only legal use is as the argument of TRACE_RANGE_END in its block.
  void checkTokenUses() {
    llvm::DenseSet<unsigned> Legal;
    for (const Annotation &A : Result.Annotations)
      Legal.insert(A.TokenNameOffset);
    // Indexed once (the last annotation per statement start, the illegal uses per name), so
    // that many ranges in one block cost linear time, not ranges x block size.
    llvm::DenseMap<unsigned, const Annotation *> StartAt;
    for (const Annotation &A : Result.Annotations)
      StartAt[A.Statement.Begin] = &A;
    llvm::StringMap<std::vector<size_t>> IllegalUses;
    for (const auto &Scope : TokenScopes)
      if (const Annotation *Start = StartAt.lookup(Tokens[Scope.first].Offset))
        IllegalUses.try_emplace(Start->TokenName);
    for (size_t J = 0; J < Tokens.size(); ++J)
      if (!Tokens[J].InDirective && Tokens[J].Kind == clang::tok::raw_identifier &&
          !Legal.contains(Tokens[J].Offset))
        if (auto It = IllegalUses.find(Tokens[J].Text); It != IllegalUses.end())
          It->second.push_back(J);
    for (auto [Decl, End] : TokenScopes) {
      const Annotation *Start = StartAt.lookup(Tokens[Decl].Offset);
      if (!Start)
        continue;
      const std::vector<size_t> &Uses = IllegalUses[Start->TokenName];
      for (auto J = std::lower_bound(Uses.begin(), Uses.end(), Decl); J != Uses.end() && *J < End;
           ++J)
        report(Tokens[*J].Offset, "token '" + Start->TokenName +
                                      "' from TRACE_RANGE_START may only be used by "
                                      "TRACE_RANGE_END");
    }
  }
};

} // namespace

ScanResult scanAnnotations(llvm::StringRef Buffer) { return Scanner(Buffer).run(); }

} // namespace cutrace
