// Traced mode (docs/design.md, "Traced contract"): annotations become calls into cutrace/device.h,
// annotated kernels gain a trailing slots parameter, their launches get slots from the host
// runtime, and a decode map describes what each recorded site means.
#ifndef CUTRACE_REWRITER_TRACEDREWRITE_H
#define CUTRACE_REWRITER_TRACEDREWRITE_H

#include "lex/AnnotationScanner.h"
#include "lex/Edit.h"
#include "lex/LineIndex.h"
#include "model/ModelMerge.h"
#include "model/SourceModel.h"
#include "traced/DecodeMap.h"
#include <map>
#include <string>
#include <vector>

namespace cutrace {

/// An annotated kernel that has a traced twin: how launch sites reach it.
struct TracedTwin {
  std::string Symbol;      // its KernelMap in namespace cutrace_map
  bool Registered = false; // the twin registers itself at run time (non-template kernels)
};

/// `--auto`: the rows an automatic kernel records (docs/auto.md).
enum class AutoRows { None, Ctas, Warps };

struct TracedOptions;
struct TracedPlan;

/// `--auto`'s planner (auto/AutoPlan.h). It sits above the traced planner, which calls it
/// through these when TracedOptions::Auto is set; the pipeline hands them in.
struct AutoPlanner {
  /// The kernels --auto traces (autoKernels).
  std::vector<int> (*Kernels)(const SourceModel &Model,
                              const std::map<int, std::vector<const AnnotationUse *>> &Traced,
                              const TracedOptions &Options, TracedPlan &Plan) = nullptr;
  /// One automatic kernel's twin edits and map (planAutoKernel).
  void (*PlanKernel)(llvm::StringRef Buffer, const LineIndex &Lines, const KernelDecl &Kernel,
                     const TracedOptions &Options, std::vector<Edit> &TwinEdits,
                     TracedPlan &Plan) = nullptr;
};

struct TracedOptions {
  unsigned MaxEvents = 1024;
  std::string Clock = "clock64"; // or "globaltimer"
  std::string SourceName;        // how locations name the file in the map
  std::string MapInclude;        // what the traced file writes in #include "..."
  std::string LinePath;          // the source as #line directives name it (SourceName if empty)
  /// #include targets that have a traced copy: resolved path -> the copy's path.
  std::map<std::string, std::string> ShadowOf;
  /// A traced header copy's directory: its "..." includes name their files from there, since the
  /// copy does not sit beside them. Empty for the traced source itself.
  std::string QuoteIncludesFrom;
  bool WithRuntime = true; // false: a header copy without annotations needs no runtime include
  AutoRows Auto = AutoRows::None;
  /// `--auto-kernels`: GLOB selects, -GLOB leaves out (docs/auto.md, "Which kernels").
  std::vector<std::string> AutoKernels;
  AutoPlanner AutoPlan; // required when Auto is set
};

/// How a file in FromDir names To (both absolute) in #include "...": a relative path, so that
/// outputs and sources can move together.
std::string spelledFrom(llvm::StringRef FromDir, llvm::StringRef To);

/// The name of a traced function's twin (docs/design.md, "Traced contract"); `operator()`'s is
/// `cutrace_traced_call`.
inline std::string twinName(llvm::StringRef Function) {
  return Function == "operator()" ? "cutrace_traced_call" : Function.str() + "_cutrace_traced";
}

struct TracedPlan {
  std::vector<Edit> Edits;
  DecodeMap Map;
  std::vector<Problem> Problems; // errors stop the run; warnings (unrewritable launches) do not
  /// Per kernel: its body span, and the launch sites edited; for reports.
  std::vector<std::pair<std::string, Span>> KernelSpans;
  std::vector<unsigned> EditedLaunches; // offsets of the launch sites rewritten
  /// Dispatchers of the calls routed through one (rewriter/traced/TracedRoutes.h), by name: written
  /// once at the top of the file.
  std::map<std::string, std::string> Routes;
};

TracedPlan planTraced(llvm::StringRef Buffer, const ScanResult &Scan, const SourceModel &Model,
                      const TracedOptions &Options);

/// One file of a translation unit to plan: its text, annotations, model and options.
struct TracedInput {
  llvm::StringRef Buffer;
  const ScanResult *Scan = nullptr;
  const SourceModel *Model = nullptr;
  TracedOptions Options;
};

/// Plans the files of one translation unit together (docs/design.md, "Calls across files"): a
/// kernel's twin reaches the annotated functions it calls in any of them, its decode map lists
/// their sites and groups, and each function's twin is written in its own file. One plan per
/// input, in order.
std::vector<TracedPlan> planTracedUnit(llvm::ArrayRef<TracedInput> Inputs);

} // namespace cutrace

#endif
