// The value of a string literal argument (a name, a lane, a flow end) as C++ reads it: adjacent
// literals concatenated, escapes decoded, raw strings taken as written. Names end up in JSON and
// in generated C++, so the value must be UTF-8 without NUL characters.
#ifndef CUTRACE_REWRITER_STRINGLITERAL_H
#define CUTRACE_REWRITER_STRINGLITERAL_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>

namespace cutrace {

/// Decodes one or more adjacent ordinary or u8 string literals (comments and whitespace between
/// them allowed). An error value says what is wrong: a wide/UTF-16/UTF-32 prefix, a bad escape,
/// invalid UTF-8, an embedded NUL.
llvm::Expected<std::string> decodeStringLiteral(llvm::StringRef Spelled);

/// Text as a C++ string literal body: quotes, backslashes and control characters escaped.
std::string escapeForCpp(llvm::StringRef Text);

/// Where escapeControls' text is shown.
enum class ShownOn {
  Terminal,    ///< tabs, newlines and carriage returns kept: the text keeps its lines
  CommentLine, ///< on one `//` line: every control character escaped, and backslashes doubled
               ///< (a trailing one would continue the comment onto the next line)
};

/// Text from a file that acts on nothing where it is shown: control characters (an escape
/// sequence, a bell) written as \xNN.
std::string escapeControls(llvm::StringRef Text, ShownOn Where);

} // namespace cutrace

#endif
