#include "model/CounterUses.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallVector.h"

namespace cutrace {
namespace {
using namespace clang;

/// The outermost macro invocation written in a file, while its expansion is being lexed.
struct OpenInvocation {
  FileID File;
  Span Written;
  bool HasCounter = false;
  bool Spellable = true;
  /// The tokens of its expansion, spelled only if a `__COUNTER__` turns up (most invocations
  /// have none, and a header such as CUTLASS's expands millions of tokens).
  llvm::SmallVector<Token, 32> Tokens;
};

class CounterWatcher : public PPCallbacks {
public:
  CounterWatcher(Preprocessor &PP, CountersByFile &Out)
      : PP(PP), SM(PP.getSourceManager()), Out(Out) {
    PP.setTokenWatcher([this](const Token &T) { see(T); });
  }

  void MacroExpands(const Token &Name, const MacroDefinition &, SourceRange Range,
                    const MacroArgs *) override {
    SourceLocation Loc = Name.getLocation();
    const IdentifierInfo *Id = Name.getIdentifierInfo();
    if (Id && Id->getName() == "__COUNTER__") {
      if (Loc.isFileID() && inOpen(Loc)) {
        Open->HasCounter = true; // written in the open invocation's arguments
      } else if (Loc.isFileID()) {
        // Written in a file: the copy writes the value (read before the expansion takes it).
        close();
        unsigned Begin = SM.getFileOffset(Loc);
        add(SM.getFileID(Loc), {{Begin, Begin + Name.getLength()},
                                std::to_string(PP.getCounterValue()), std::nullopt});
      } else if (Open) {
        Open->HasCounter = true;
      }
      return;
    }
    if (!Loc.isFileID())
      return;
    if (inOpen(Loc))
      return; // a macro in the arguments of the open invocation
    close();
    FileID File = SM.getFileID(Loc);
    unsigned Begin = SM.getFileOffset(Loc);
    SourceLocation Last = SM.getFileLoc(Range.getEnd());
    unsigned End = SM.getFileOffset(Last) +
                   Lexer::MeasureTokenLength(Last, SM, PP.getLangOpts());
    Open = OpenInvocation{File, {Begin, End}};
  }

  void EndOfMainFile() override { close(); }

private:
  Preprocessor &PP;
  const SourceManager &SM;
  CountersByFile &Out;
  std::optional<OpenInvocation> Open;

  /// Loc, a file location, lies in the open invocation.
  bool inOpen(SourceLocation Loc) const {
    if (!Open || SM.getFileID(Loc) != Open->File)
      return false;
    unsigned At = SM.getFileOffset(Loc);
    return At >= Open->Written.Begin && At < Open->Written.End;
  }

  /// A token the parser receives: part of the open invocation's expansion, or past it.
  void see(const Token &T) {
    if (!Open)
      return;
    SourceLocation Loc = T.getLocation();
    if (Loc.isMacroID()) {
      if (inOpen(SM.getExpansionLoc(Loc))) {
        if (T.isAnnotation() || T.is(tok::eof))
          Open->Spellable = false;
        else
          Open->Tokens.push_back(T);
        return;
      }
    }
    close();
  }

  void close() {
    if (Open && Open->HasCounter) {
      std::string Text;
      for (const Token &T : Open->Tokens)
        Text += (Text.empty() ? "" : " ") + PP.getSpelling(T);
      add(Open->File, {Open->Written, Open->Spellable ? Text : "", std::nullopt});
    }
    Open.reset();
  }

  void add(FileID File, CounterUse Use) {
    if (OptionalFileEntryRef Entry = SM.getFileEntryRefForID(File))
      Out[&Entry->getFileEntry()].push_back(std::move(Use));
  }
};

} // namespace

std::unique_ptr<PPCallbacks> watchCounters(Preprocessor &PP, CountersByFile &Out) {
  return std::make_unique<CounterWatcher>(PP, Out);
}

} // namespace cutrace
