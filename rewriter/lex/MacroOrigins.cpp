#include "lex/MacroOrigins.h"

#include "lex/Annotation.h"
#include "llvm/ADT/STLExtras.h"
#include <algorithm>

namespace cutrace {

bool isAnnotationNamePiece(llvm::StringRef Id) {
  if (Id.size() < 2)
    return false;
  for (const AnnotationSpelling &S : annotationSpellings())
    if (S.Macro.contains(Id))
      return true;
  return false;
}

MacroOrigins::MacroOrigins(const std::vector<RawToken> &Tokens) : Tokens(Tokens) {
  for (size_t I = 0; I + 2 < Tokens.size(); ++I) {
    if (!(Tokens[I].InDirective && Tokens[I].StartsLine && Tokens[I].Kind == clang::tok::hash &&
          Tokens[I + 1].isIdentifier("define") && !Tokens[I + 2].StartsLine &&
          Tokens[I + 2].Kind == clang::tok::raw_identifier))
      continue;
    Macro M{Tokens[I + 2].Text, I + 3, I + 3, {}, false};
    size_t End = I + 3;
    while (End < Tokens.size() && Tokens[End].InDirective && !Tokens[End].StartsLine)
      ++End;
    // `NAME(` with no space between is a function-like macro: its parameters are not pasted
    // text but what the use passes.
    if (M.Begin < End && Tokens[M.Begin].Kind == clang::tok::l_paren &&
        Tokens[M.Begin].Offset == Tokens[I + 2].end()) {
      M.FunctionLike = true;
      size_t J = M.Begin + 1;
      for (; J < End && Tokens[J].Kind != clang::tok::r_paren; ++J)
        if (Tokens[J].Kind == clang::tok::raw_identifier)
          M.Params.push_back(Tokens[J].Text);
      M.Begin = std::min(J + 1, End);
    }
    M.End = End;
    if (M.FunctionLike)
      FunctionLike.insert(M.Name);
    Macros.push_back(M);
  }
  classify();
}

void MacroOrigins::classify() {
  // Each pass can only add names, so the sets stop growing after at most Macros.size() passes.
  for (bool Grew = true; Grew;) {
    Grew = false;
    for (const Macro &M : Macros) {
      bool Annotates = false, Pastes = false, Piece = false;
      std::string Joined; // the text of a `a ## b ## c` chain, parameters left out
      for (size_t J = M.Begin; J < M.End; ++J) {
        const RawToken &T = Tokens[J];
        bool Param = std::find(M.Params.begin(), M.Params.end(), T.Text) != M.Params.end();
        if (T.Kind == clang::tok::hashhash) {
          Pastes = true;
          continue;
        }
        if (T.Kind != clang::tok::raw_identifier) {
          Joined.clear();
          continue;
        }
        bool Pasted = (J > M.Begin && Tokens[J - 1].Kind == clang::tok::hashhash) ||
                      (J + 1 < M.End && Tokens[J + 1].Kind == clang::tok::hashhash);
        if (!Pasted || Param)
          Joined.clear();
        if (!Param) {
          if (findSpelling(T.Text) || Annotating.contains(T.Text) ||
              (Pasted && (isAnnotationNamePiece(T.Text) || Fragment.contains(T.Text))))
            Annotates = true;
          if (Pasted) {
            Joined += T.Text.str();
            for (const AnnotationSpelling &S : annotationSpellings())
              if (llvm::StringRef(Joined).contains(S.Macro))
                Annotates = true;
          }
          if (Pasting.contains(T.Text))
            Pastes = true;
          if (isAnnotationNamePiece(T.Text) || Fragment.contains(T.Text))
            Piece = true;
        }
      }
      auto Add = [&](llvm::StringSet<> &Set, bool Yes) {
        if (Yes && Set.insert(M.Name).second)
          Grew = true;
      };
      Add(Annotating, Annotates);
      Add(Pasting, Pastes);
      Add(Fragment, Piece && !M.FunctionLike);
    }
  }
}

bool MacroOrigins::producesAnnotation(size_t I) const {
  llvm::StringRef Name = Tokens[I].Text;
  if (Annotating.contains(Name))
    return true;
  size_t Open = I + 1;
  if (Open >= Tokens.size() || Tokens[Open].Kind != clang::tok::l_paren)
    return false;
  bool Pastes = Pasting.contains(Name);
  if (!Pastes && !FunctionLike.contains(Name))
    return false;
  // The arguments: an annotation name passed to the macro is called by its body; a piece of one
  // can be pasted into one.
  int Depth = 0;
  for (size_t J = Open; J < Tokens.size(); ++J) {
    const RawToken &T = Tokens[J];
    if (T.InDirective)
      continue;
    if (T.Kind == clang::tok::l_paren)
      ++Depth;
    else if (T.Kind == clang::tok::r_paren && --Depth == 0)
      break;
    else if (T.Kind == clang::tok::raw_identifier &&
             (findSpelling(T.Text) || Annotating.contains(T.Text) ||
              (Pastes && (isAnnotationNamePiece(T.Text) || Fragment.contains(T.Text)))))
      return true;
  }
  return false;
}

bool MacroOrigins::defines(llvm::StringRef Name) const {
  return llvm::any_of(Macros, [&](const Macro &M) { return M.Name == Name; });
}

} // namespace cutrace
