// The rewrite pipeline as one call per file: read -> scan and check -> plan and emit -> write
// (docs/design.md, "The rewrite pipeline"). trace-rewrite, and any other front end (a compiler
// wrapper, a whole-target mode), calls this and only prints what it returns.
#ifndef CUTRACE_REWRITER_PIPELINE_REWRITE_H
#define CUTRACE_REWRITER_PIPELINE_REWRITE_H

#include "lex/AnnotationScanner.h"
#include "model/SourceModel.h"
#include "pipeline/Input.h"
#include "pipeline/RunLog.h"
#include "pipeline/Status.h"
#include "traced/TracedRewrite.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <string>
#include <vector>

namespace cutrace {

enum class RewriteMode { Strip, Traced, VerifyStrip };
llvm::StringRef modeName(RewriteMode Mode); // "strip", "traced", "verify-strip"

struct RewriteRequest {
  RewriteMode Mode = RewriteMode::Strip;
  std::string Output = "-"; // strip and traced; "-" is stdout
  bool InPlace = false;     // strip: Output is the input itself, on purpose (-i)
  std::string MapPath;      // traced: decode-map header; empty: beside the output
  std::string Against;      // verify-strip: the file strip must reproduce byte for byte
  bool Strict = false;      // verify-strip: a pass that cannot parse is an error (exit 3)
  bool Verbose = false;     // also the notes on code Clang 19 rejects and nvcc accepts (-v)
  unsigned MaxEvents = 1024;
  std::string Clock = "clock64";
  AutoRows Auto = AutoRows::None;       // traced: --auto (docs/auto.md)
  std::vector<std::string> AutoKernels; // traced: --auto-kernels patterns
  CompileSettings Compile;
};

/// Every stage a run of this request logs, in order.
std::vector<std::string> stageNames(const RewriteRequest &Request);

/// An output a run will write once every file of the run succeeded.
struct PendingOutput {
  std::string Path;
  std::string Text;
  bool IsMap = false; // the decode-map header or its JSON (logged as "write map")
  std::string StandsFor; // a traced copy of a project header: that header's path
};

struct RewriteResult {
  int Status = Ok; // an ExitStatus
  RewriteMode Mode = RewriteMode::Strip;
  SourceFile Input;
  RunLog Log{{}};
  std::string AgainstDiff; // verify-strip --against: the unified diff when strip(FILE) differs
  std::vector<PendingOutput> Pending; // what commitRewrites writes
  std::vector<Count> MapCounts;

  // What the run worked from, for reports: the scan, and the edits it applied (none when it
  // stopped before applying); traced runs also keep the merged model and the plan.
  ScanResult Scan;
  std::optional<std::vector<Edit>> AppliedEdits;
  SourceModel Model;
  TracedPlan Plan;
  /// Traced runs: offsets of annotations the lexer found and no Clang pass saw (a branch no
  /// arch of the build compiles), in file order; the plan must not leave them raw.
  std::vector<unsigned> UnseenAnnotations;
};

/// Runs one file through every stage but the write: diagnostics are shown on Shown as they are
/// found (and kept in the result's log), outputs are kept in the result.
RewriteResult planRewrite(const SourceFile &Input, const RewriteRequest &Request,
                          llvm::raw_ostream &Shown);

/// The write stage for a whole run: when every result succeeded, writes all their outputs, all
/// or nothing; otherwise writes nothing. Finishes every log. False when anything was not written.
bool commitRewrites(llvm::MutableArrayRef<RewriteResult> Results, llvm::raw_ostream &Shown);

/// planRewrite and commitRewrites for one file.
RewriteResult rewriteFile(const SourceFile &Input, const RewriteRequest &Request,
                          llvm::raw_ostream &Shown);

} // namespace cutrace

#endif
