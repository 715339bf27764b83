// libFuzzer target: the lexical scan and strip (rewriter/lex/AnnotationScanner.h, rewriter/strip/Strip.h) on
// any bytes. Beyond "no crash", it checks the strip contract's properties (docs/design.md, "Strip
// contract") that hold for every input, not only for the corpus.
#include "lex/AnnotationScanner.h"
#include "strip/Strip.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace cutrace;

namespace {

[[noreturn]] void violated(const char *Property) {
  std::fprintf(stderr, "fuzz_strip: property violated: %s\n", Property);
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  // std::string keeps the terminating NUL the raw lexer expects after the buffer.
  const std::string Text(reinterpret_cast<const char *>(Data), Size);
  const ScanResult Scan = scanAnnotations(Text);

  const std::vector<Span> Deletions = planStripDeletions(Text, strippedStatements(Scan));
  unsigned Previous = 0;
  for (const Span &D : Deletions) {
    if (D.Begin < Previous || D.End < D.Begin || D.End > Text.size())
      violated("deletions are sorted, non-overlapping and inside the buffer");
    Previous = D.End;
  }
  const std::string Stripped = applyDeletions(Text, Deletions);
  if (Stripped.size() > Text.size())
    violated("strip output is never longer than its input");
  if (Stripped != stripAnnotations(Text, Scan))
    violated("stripAnnotations equals planStripDeletions + applyDeletions");

  // A file strip accepts gives output strip leaves as it is.
  if (!hasErrors(Scan.Problems)) {
    const ScanResult Again = scanAnnotations(Stripped);
    if (stripAnnotations(Stripped, Again) != Stripped)
      violated("strip is idempotent on its own output");
  }
  return 0;
}
