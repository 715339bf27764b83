// The annotation language as the rewriter sees it: kinds, their argument roles, and the spans a
// raw-lexer scan finds in a file.
#ifndef CUTRACE_REWRITER_ANNOTATION_H
#define CUTRACE_REWRITER_ANNOTATION_H

#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <vector>

namespace cutrace {

enum class AnnotationKind {
  Group,
  Range,
  RangeStart,
  RangeEnd,
  Record,
  Dag,
  Groups,   // TRACE_GROUPS: one row per slice of the CTA's threads
  RangeIf,  // TRACE_RANGE_IF: a scoped range recorded only when its condition holds
  RecordIf, // TRACE_RECORD_IF
  Sample,   // TRACE_SAMPLE: the next statement records only when its condition holds
  SampleRest, // TRACE_SAMPLE_REST: the rest of the block records only when its condition holds
};

/// TRACE_SAMPLE or TRACE_SAMPLE_REST: code written twice in the twin, not a marker.
inline bool isSampleKind(AnnotationKind K) {
  return K == AnnotationKind::Sample || K == AnnotationKind::SampleRest;
}

/// A group declaration (one row per CTA, or one per slice).
inline bool isGroupKind(AnnotationKind K) {
  return K == AnnotationKind::Group || K == AnnotationKind::Groups;
}
/// BEGIN at the statement, END at the end of the enclosing block.
inline bool isScopedRangeKind(AnnotationKind K) {
  return K == AnnotationKind::Range || K == AnnotationKind::RangeIf;
}

/// Records events; groups, TRACE_DAG and the samples write no device record.
inline bool isMarkerKind(AnnotationKind K) {
  return !isGroupKind(K) && K != AnnotationKind::Dag && !isSampleKind(K);
}

/// Half-open byte range [Begin, End) in the scanned buffer.
struct Span {
  unsigned Begin = 0;
  unsigned End = 0;
  unsigned size() const { return End - Begin; }
};

/// What an argument position means; decides which rules apply to it.
enum class ArgRole {
  Name,
  Lane,
  Payload,
  Lead,
  Token,
  Source,
  Destination,
  Size,
  First,
  Condition
};

struct AnnotationSpelling {
  AnnotationKind Kind;
  llvm::StringRef Macro; // "TRACE_RANGE"
  unsigned MinArgs, MaxArgs;
  std::vector<ArgRole> Roles; // role of argument i
};

/// Spelling table for every annotation macro.
const std::vector<AnnotationSpelling> &annotationSpellings();
/// The spelling of a macro name, if it is an annotation.
const AnnotationSpelling *findSpelling(llvm::StringRef Macro);
const AnnotationSpelling &spellingOf(AnnotationKind Kind);
llvm::StringRef roleName(ArgRole Role);

/// One annotation found by the lexical scan.
struct Annotation {
  AnnotationKind Kind;
  unsigned MacroOffset = 0; // the TRACE_* identifier
  Span Call;                // TRACE_X( ... )
  Span Statement;           // what strip deletes: the call (or declaration) through its ';'
  std::vector<Span> Args;   // top-level arguments, trimmed
  std::string TokenName;    // RANGE_START: declared variable; RANGE_END: its argument
  unsigned TokenNameOffset = 0;
  bool HasSemicolon = false;

  const AnnotationSpelling &spelling() const { return spellingOf(Kind); }
  std::optional<Span> argWithRole(ArgRole Role) const;
};

} // namespace cutrace

#endif
