// The rewrite pipeline as one call per file: read -> scan and check -> plan and emit -> write
// (docs/design.md, "The rewrite pipeline"). trace-rewrite, and any other front end (a compiler
// wrapper, a whole-target mode), calls this and only prints what it returns.
#ifndef CUTRACE_REWRITER_PIPELINE_REWRITE_H
#define CUTRACE_REWRITER_PIPELINE_REWRITE_H

#include "AnnotationScanner.h"
#include "SourceModel.h"
#include "TracedRewrite.h"
#include "pipeline/Input.h"
#include "pipeline/RunLog.h"
#include "pipeline/Status.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <string>
#include <vector>

namespace cutrace {

enum class RewriteMode { Strip, Traced, VerifyStrip };
llvm::StringRef modeName(RewriteMode Mode); // "strip", "traced", "verify-strip"

struct RewriteRequest {
  RewriteMode Mode = RewriteMode::Strip;
  std::string Output = "-"; // strip and traced; "-" is stdout, the input's own path is in place
  std::string MapPath;      // traced: decode-map header; empty: beside the output
  std::string Against;      // verify-strip: the file strip must reproduce byte for byte
  bool Strict = false;      // verify-strip: a pass that cannot parse is an error (exit 3)
  unsigned MaxEvents = 1024;
  std::string Clock = "clock64";
  CompileSettings Compile;
};

/// Every stage a run of this request logs, in order.
std::vector<std::string> stageNames(const RewriteRequest &Request);

struct RewriteResult {
  int Status = Ok; // an ExitStatus
  RewriteMode Mode = RewriteMode::Strip;
  SourceFile Input;
  RunLog Log{{}};
  std::string AgainstDiff; // verify-strip --against: the unified diff when strip(FILE) differs

  // What the run worked from, for reports: the scan, and the edits it applied (none when it
  // stopped before applying); traced runs also keep the merged model and the plan.
  ScanResult Scan;
  std::optional<std::vector<Edit>> AppliedEdits;
  SourceModel Model;
  TracedPlan Plan;
};

/// Runs one file through the pipeline. Diagnostics are shown on Shown as they are found (and kept
/// in the result's log); outputs are written only when the whole run succeeds.
RewriteResult rewriteFile(const SourceFile &Input, const RewriteRequest &Request,
                          llvm::raw_ostream &Shown);

} // namespace cutrace

#endif
