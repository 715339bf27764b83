#include "lex/AnnotationScanner.h"

#include "lex/MacroOrigins.h"
#include "lex/RawTokens.h"
#include "lex/TokenNeighbours.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include <algorithm>
#include <set>

namespace cutrace {
namespace {

class Scanner {
public:
  explicit Scanner(llvm::StringRef Buffer)
      : Buffer(Buffer), Tokens(lexAll(Buffer)), Neighbours(Tokens), Macros(Tokens) {}

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
        else if (directiveBeforeArguments(I))
          // Strip would leave the name behind (with its include gone) and --traced the call.
          report(T.Offset, "preprocessor directive between " + T.Text.str() +
                               " and its '(': an annotation's name and arguments cannot depend "
                               "on #if (write one annotation in each branch)");
      } else if (T.Text.contains('\\') && findSpelling(withoutLineSplices(T.Text))) {
        // The compiler joins the pieces into the macro name; strip and --traced would not.
        report(T.Offset, "annotation name " + withoutLineSplices(T.Text) +
                             " may not be split by a line continuation");
      } else if (Macros.producesAnnotation(I)) {
        report(T.Offset,
               "annotation may not be produced by the expansion of macro '" + T.Text.str() + "'");
      } else if (const AnnotationSpelling *Near = misspelledAnnotation(I)) {
        // Strip leaves a misspelt annotation in place and exits 0: the compiler's error would
        // come later, and without the name that was meant.
        Result.Problems.push_back({T.Offset,
                                   "'" + T.Text.str() +
                                       "' is not a cutrace annotation, so it is left in place; "
                                       "did you mean '" + Near->Macro.str() + "'?",
                                   Severity::Warning});
      }
    }
    checkLabelledStatementsAreFollowed();
    checkTokenUses();
    return std::move(Result);
  }

private:
  llvm::StringRef Buffer;
  std::vector<RawToken> Tokens;
  TokenNeighbours Neighbours;
  MacroOrigins Macros;
  ScanResult Result;
  std::vector<std::pair<int, int>> StatementTokens;        // each annotation's first, last token
  std::vector<std::pair<unsigned, int>> LabelledStatements; // macro offset, last token
  std::vector<std::pair<size_t, size_t>> TokenScopes; // (declaration token, end of block)
  std::vector<size_t> BlockEnds;                      // endOfBlock of every token, built lazily

  /// The annotation a call of an unknown TRACE_-like name (`TRACE_RANGEE(`, `trace_record(`)
  /// most likely meant: at most two edits away. Names the file defines itself are its own.
  const AnnotationSpelling *misspelledAnnotation(size_t I) const {
    llvm::StringRef Name = Tokens[I].Text;
    if (!Name.starts_with_insensitive("TRACE") || I + 1 >= Tokens.size() ||
        Tokens[I + 1].Kind != clang::tok::l_paren || Macros.defines(Name))
      return nullptr;
    const std::string Upper = Name.upper();
    const AnnotationSpelling *Best = nullptr;
    unsigned BestDistance = 3;
    for (const AnnotationSpelling &S : annotationSpellings()) {
      unsigned Distance = llvm::StringRef(Upper).edit_distance(S.Macro, true, BestDistance);
      if (Distance < BestDistance)
        Best = &S, BestDistance = Distance;
    }
    return Best;
  }

  void report(unsigned Offset, std::string Message) {
    // Two checks can fail on the same annotation for one reason (no ';' and not a statement).
    if (!Result.Problems.empty() && Result.Problems.back().Offset == Offset &&
        Result.Problems.back().Message == Message)
      return;
    Result.Problems.push_back({Offset, std::move(Message), Severity::Error});
  }

  /// A lane that is not a string is most often a payload and a lane swapped, and the two
  /// macros with both order them differently: say this one's order.
  void noteArgumentOrder(const AnnotationSpelling &S, unsigned Offset) {
    std::string Order;
    bool PayloadFirst = false, SeenPayload = false;
    for (ArgRole Role : S.Roles) {
      Order += (Order.empty() ? "" : ", ") + roleName(Role).str();
      SeenPayload |= Role == ArgRole::Payload;
      PayloadFirst |= Role == ArgRole::Lane && SeenPayload;
    }
    if (std::find(S.Roles.begin(), S.Roles.end(), ArgRole::Payload) == S.Roles.end())
      return;
    Result.Problems.push_back({Offset,
                               "the arguments of " + S.Macro.str() + " are (" + Order + "): " +
                                   (PayloadFirst ? "the payload comes before the lane"
                                                 : "the lane comes before the payload"),
                               Severity::Note});
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
    // A block comment is one space to the preprocessor, newlines and all: a directive line goes on
    // past one that starts on it (deleting only up to its first newline would free its rest as
    // code). A lone '\r' ends a line for the lexer too, so it ends the directive here as well.
    bool InLineComment = false;
    for (size_t I = Offset; I < Buffer.size(); ++I) {
      const char C = Buffer[I];
      const char Next = I + 1 < Buffer.size() ? Buffer[I + 1] : '\0';
      if (!InLineComment && C == '/' && Next == '*') {
        const size_t Close = Buffer.find("*/", I + 2);
        if (Close == llvm::StringRef::npos)
          return static_cast<unsigned>(Buffer.size());
        I = Close + 1;
      } else if (!InLineComment && C == '/' && Next == '/') {
        InLineComment = true; // a '/*' after it opens nothing
        ++I;
      } else if (C == '\r' || C == '\n') {
        size_t Last = I;
        while (Last > Offset && (Buffer[Last - 1] == ' ' || Buffer[Last - 1] == '\t'))
          --Last;
        if (Last == Offset || Buffer[Last - 1] != '\\')
          return static_cast<unsigned>(I);
        if (C == '\r' && Next == '\n') // a spliced CRLF: the line goes on after it
          ++I;
      }
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
    } else if (Name.isIdentifier("define") && Hash + 2 < End &&
               findSpelling(Tokens[Hash + 2].Text)) {
      // A fallback `#define TRACE_RECORD(...)` with nothing after it is the no-op strip assumes;
      // one that expands to code makes the annotated program differ from the stripped one.
      size_t Body = Hash + 3;
      if (Body < End && Tokens[Body].Kind == clang::tok::l_paren &&
          Tokens[Body].Offset == Tokens[Hash + 2].end()) {
        while (Body < End && Tokens[Body].Kind != clang::tok::r_paren)
          ++Body;
        ++Body; // past the parameter list
      }
      if (Body < End)
        report(Tokens[Hash + 2].Offset,
               "the file may define " + Tokens[Hash + 2].Text.str() +
                   " only as an empty macro: strip deletes its uses, so a definition that "
                   "expands to code would change the program");
    }
  }

  /// Whether the annotation name at I is followed by a directive and then by a '(': the
  /// compiler reads that as the annotation's call in the configurations the directive allows.
  bool directiveBeforeArguments(size_t I) const {
    size_t J = I + 1;
    if (J >= Tokens.size() || !Tokens[J].InDirective)
      return false;
    while (J < Tokens.size() && Tokens[J].InDirective)
      ++J;
    return J < Tokens.size() && Tokens[J].Kind == clang::tok::l_paren;
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
      // What the lexer skips before a line's first token: a NUL counts as whitespace too.
      llvm::StringRef Rest = Buffer.substr(A.Statement.End).ltrim(llvm::StringRef(" \t\f\v\0", 5));
      if (Rest.starts_with("#") || Rest.starts_with("%:"))
        report(A.Statement.End + (Buffer.substr(A.Statement.End).size() - Rest.size()),
               "'#' right after an annotation would start a preprocessor directive once strip "
               "removes the annotation; put it on a line of its own");
    } else {
      report(A.MacroOffset, "annotation must be a whole statement inside a function body");
    }
    size_t Last = A.HasSemicolon ? After : Close;
    StatementTokens.push_back({static_cast<int>(First), static_cast<int>(Last)});
    checkStatementPosition(A, First, Last);
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
            if (Role == ArgRole::Lane)
              noteArgumentOrder(S, A.Args[I].Begin);
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
          if (isAssignment(T->Kind)) {
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

  /// Index of the first token of the label whose ':' is at Colon (`name:`, `case ...:`,
  /// `default:`), or -1 when the ':' ends no label.
  int labelStart(int Colon) const {
    int B = previousCodeToken(Colon);
    if (B < 0)
      return -1;
    if (Tokens[B].isIdentifier("default"))
      return B;
    if (Tokens[B].Kind == clang::tok::raw_identifier && !Tokens[B].isIdentifier("case")) {
      int BB = previousCodeToken(B);
      if (BB < 0 || Tokens[BB].isIdentifier("case"))
        return BB;
      using namespace clang::tok;
      TokenKind K = Tokens[BB].Kind;
      if (K == semi || K == l_brace || K == r_brace || K == colon || K == r_paren ||
          Tokens[BB].isIdentifier("else") || Tokens[BB].isIdentifier("do"))
        return B;
    }
    for (int J = B; J >= 0; J = previousCodeToken(J)) { // `case <constant expression>:`
      if (Tokens[J].isIdentifier("case"))
        return J;
      clang::tok::TokenKind K = Tokens[J].Kind;
      if (K == clang::tok::semi || K == clang::tok::l_brace || K == clang::tok::r_brace)
        return -1;
    }
    return -1;
  }

  /// The statement that owns code token P as its sole, unbraced body ("" when none), or
  /// "statement" when nothing but an expression can follow P.
  std::string ownerAfter(int P) const {
    const RawToken &T = Tokens[P];
    if (T.isIdentifier("else") || T.isIdentifier("do"))
      return T.Text.str();
    if (T.Kind == clang::tok::r_paren && T.MatchingOpen >= 0) {
      // The '(' may be the first code token of the file (only directives before it).
      int Keyword = previousCodeToken(T.MatchingOpen);
      if (Keyword >= 0 && Tokens[Keyword].isIdentifier("_Pragma")) // as `#pragma` is
        return "pragma";
      if (Keyword >= 0 && Tokens[Keyword].isIdentifier("constexpr")) // if constexpr (...)
        Keyword = previousCodeToken(Keyword);
      for (llvm::StringRef Kw : {"if", "for", "while", "switch"})
        if (Keyword >= 0 && Tokens[Keyword].isIdentifier(Kw))
          return Kw.str();
      return "statement";
    }
    using namespace clang::tok;
    if (T.Kind != semi && T.Kind != l_brace && T.Kind != r_brace && T.Kind != colon)
      return "statement";
    return "";
  }

  /// What precedes the annotation statement starting at First must make it a statement of its
  /// own in every preprocessor configuration: the raw tokens hold all branches of each #if,
  /// while the compiler (and the parse passes) see one. Labels in front of it are looked through:
  /// `if (c) lbl: TRACE_RECORD(..);` is the if's sole body as much as the bare annotation is.
  void checkStatementPosition(const Annotation &A, size_t First, size_t Last) {
    if (Tokens[First].Depth == 0) {
      report(A.MacroOffset, "annotation must be a whole statement inside a function body");
      return;
    }
    std::vector<int> Pending = Neighbours.before(First);
    std::set<int> Seen;
    bool Labelled = false;
    std::string Owner;
    while (!Pending.empty() && Owner.empty()) {
      int P = Pending.back();
      Pending.pop_back();
      if (!Seen.insert(P).second)
        continue;
      if (P < 0) {
        Owner = "statement";
        break;
      }
      Owner = ownerAfter(P);
      if (Owner.empty() && Tokens[P].Kind == clang::tok::colon) {
        int Label = labelStart(P);
        if (Label < 0) {
          Owner = "statement";
          break;
        }
        Labelled = true;
        std::vector<int> More = Neighbours.before(Label);
        Pending.insert(Pending.end(), More.begin(), More.end());
      }
    }
    if (Owner.empty() && Neighbours.pragmaBefore(First))
      Owner = "pragma";
    if (Owner == "statement")
      report(A.MacroOffset, "annotation must be a whole statement inside a function body");
    else if (Owner == "pragma")
      report(A.MacroOffset, "annotation may not follow a '#pragma' directly: the pragma would "
                            "apply to the next statement once strip removes the annotation");
    else if (!Owner.empty())
      report(A.MacroOffset, "annotation may not be the sole, unbraced body of '" + Owner + "'");
    else if (Labelled)
      LabelledStatements.push_back({A.MacroOffset, Last});
  }

  /// A label needs a statement after it (C++17): a labelled annotation followed by '}', in any
  /// configuration and past the annotations that go with it, would leave `lbl: }` once stripped.
  void checkLabelledStatementsAreFollowed() {
    llvm::DenseMap<int, int> StatementLast; // first token index -> last token index
    for (const auto &[FirstIndex, LastIndex] : StatementTokens)
      StatementLast[FirstIndex] = LastIndex;
    for (const auto &[MacroOffset, Last] : LabelledStatements) {
      std::vector<int> Pending = Neighbours.after(Last);
      std::set<int> Seen;
      while (!Pending.empty()) {
        int N = Pending.back();
        Pending.pop_back();
        if (!Seen.insert(N).second)
          continue;
        if (auto It = StatementLast.find(N); It != StatementLast.end()) {
          std::vector<int> More = Neighbours.after(It->second);
          Pending.insert(Pending.end(), More.begin(), More.end());
          continue;
        }
        if (N >= static_cast<int>(Tokens.size()) || Tokens[N].Kind == clang::tok::r_brace) {
          report(MacroOffset, "annotation after a label may not end its block: stripping it "
                              "would leave the label without a statement");
          break;
        }
      }
    }
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
