// Plan-and-emit stage: the edits each mode makes and the texts they produce, in memory. Nothing
// here touches the file system; the write stage does.
#ifndef CUTRACE_REWRITER_PIPELINE_EMIT_H
#define CUTRACE_REWRITER_PIPELINE_EMIT_H

#include "lex/AnnotationScanner.h"
#include "pipeline/Input.h"
#include "pipeline/RunLog.h"
#include "traced/TracedRewrite.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <string>
#include <vector>

namespace cutrace {

struct StripEmission {
  std::vector<Span> Deletions;
  std::string Text;
};

/// Plans and applies strip's deletions (logged as the plan and apply stages).
StripEmission emitStrip(const SourceFile &F, const ScanResult &Scan, RunLog &Log);

/// True when strip(Stripped) is Stripped and finds nothing left to strip.
bool stripIsIdempotent(llvm::StringRef Stripped);

/// Where a traced run writes: the traced source, the decode-map header and its JSON twin.
struct TracedPaths {
  std::string Output; // "-" is stdout
  std::string Map;
  std::string Json;
  std::string Include;   // how the traced file names the map in its #include "..."
  std::string HeaderDir; // where traced copies of project headers go; empty for stdout
};

/// The map goes to MapPath when given, else to <input stem>.trace_map.h beside the output.
TracedPaths tracedPathsFor(llvm::StringRef Input, llvm::StringRef Output, llvm::StringRef MapPath);

/// Why these outputs cannot be written by a run reading Input, if they cannot: an output that is
/// the input (unless InPlace; the message then ends with Instead, what the mode allows), a
/// directory, or named twice.
std::optional<std::string> outputClash(llvm::StringRef Input, llvm::ArrayRef<std::string> Outputs,
                                       bool InPlace, llvm::StringRef Instead);

/// outputClash for a traced run, and a map path that an #include cannot spell.
std::optional<std::string> tracedPathsClash(llvm::StringRef Input, const TracedPaths &Paths);

/// The traced copy of a project header: its annotated kernels' twins, and includes that lead
/// to other copies.
struct HeaderEmission {
  std::string Original, Copy; // paths
  std::string Text;
  std::string MapPath, JsonPath, MapHeader, MapJson; // only for annotated headers
  TracedPlan Plan;
};

struct TracedEmission {
  SourceModel Model; // both passes merged
  TracedPlan Plan;
  std::string Text;
  std::string MapHeader, MapJson;
  std::vector<HeaderEmission> Headers;
};

/// Plans the traced edits over the merged passes, applies them and renders the decode map (the
/// plan and apply stages; the map is logged when it is written). Nothing on a planning error;
/// Status then says which.
std::optional<TracedEmission> emitTraced(const SourceFile &F, const ScanResult &Scan,
                                         llvm::ArrayRef<ParseOutcome> Passes, TracedOptions Options,
                                         const TracedPaths &Paths, RunLog &Log,
                                         llvm::raw_ostream &Shown, int &Status);

/// What the map stage reports: kernels and recorded sites.
std::vector<Count> mapCounts(const DecodeMap &Map);

} // namespace cutrace

#endif
