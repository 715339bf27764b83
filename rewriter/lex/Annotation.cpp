#include "lex/Annotation.h"

namespace cutrace {

const std::vector<AnnotationSpelling> &annotationSpellings() {
  using R = ArgRole;
  static const std::vector<AnnotationSpelling> Table = {
      {AnnotationKind::Group, "TRACE_GROUP", 2, 2, {R::Name, R::Lead}},
      {AnnotationKind::Range, "TRACE_RANGE", 1, 3, {R::Name, R::Lane, R::Payload}},
      {AnnotationKind::RangeStart, "TRACE_RANGE_START", 1, 3, {R::Name, R::Lane, R::Payload}},
      {AnnotationKind::RangeEnd, "TRACE_RANGE_END", 1, 1, {R::Token}},
      {AnnotationKind::Record, "TRACE_RECORD", 1, 3, {R::Name, R::Payload, R::Lane}},
      {AnnotationKind::Dag, "TRACE_DAG", 2, 2, {R::Source, R::Destination}},
      {AnnotationKind::Groups, "TRACE_GROUPS", 2, 3, {R::Name, R::Size, R::First}},
      {AnnotationKind::RangeIf,
       "TRACE_RANGE_IF",
       2,
       4,
       {R::Condition, R::Name, R::Lane, R::Payload}},
      {AnnotationKind::RecordIf,
       "TRACE_RECORD_IF",
       2,
       4,
       {R::Condition, R::Name, R::Payload, R::Lane}},
      {AnnotationKind::Sample, "TRACE_SAMPLE", 1, 1, {R::Condition}},
      {AnnotationKind::SampleRest, "TRACE_SAMPLE_REST", 1, 1, {R::Condition}},
  };
  return Table;
}

const AnnotationSpelling *findSpelling(llvm::StringRef Macro) {
  for (const AnnotationSpelling &S : annotationSpellings())
    if (S.Macro == Macro)
      return &S;
  return nullptr;
}

const AnnotationSpelling &spellingOf(AnnotationKind Kind) {
  return annotationSpellings()[static_cast<size_t>(Kind)];
}

llvm::StringRef roleName(ArgRole Role) {
  switch (Role) {
  case ArgRole::Name:
    return "name";
  case ArgRole::Lane:
    return "lane";
  case ArgRole::Payload:
    return "payload";
  case ArgRole::Lead:
    return "lead";
  case ArgRole::Token:
    return "token";
  case ArgRole::Source:
    return "source";
  case ArgRole::Destination:
    return "destination";
  case ArgRole::Size:
    return "size";
  case ArgRole::First:
    return "first";
  case ArgRole::Condition:
    return "condition";
  }
  return "argument";
}

std::optional<Span> Annotation::argWithRole(ArgRole Role) const {
  const std::vector<ArgRole> &Roles = spelling().Roles;
  for (size_t I = 0; I < Args.size() && I < Roles.size(); ++I)
    if (Roles[I] == Role)
      return Args[I];
  return std::nullopt;
}

} // namespace cutrace
