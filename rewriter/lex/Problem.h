// A rule violation or a note about a file, located by byte offset; turned into a clang-style
// diagnostic only when it is reported.
#ifndef CUTRACE_REWRITER_PROBLEM_H
#define CUTRACE_REWRITER_PROBLEM_H

#include <string>
#include <vector>

namespace cutrace {

enum class Severity { Note, Warning, Error };

struct Problem {
  unsigned Offset = 0;
  std::string Message;
  Severity Level = Severity::Error;
};

inline bool hasErrors(const std::vector<Problem> &Problems) {
  for (const Problem &P : Problems)
    if (P.Level == Severity::Error)
      return true;
  return false;
}

} // namespace cutrace

#endif
