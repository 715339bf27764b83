// The one-line answers `trace-view analyze` opens with (analysis_verdict.cpp). Internal to
// cutrace_analysis.
#ifndef CUTRACE_ANALYSIS_VERDICT_H
#define CUTRACE_ANALYSIS_VERDICT_H

#include <cutrace/analysis.h>

#include <string>

namespace cutrace {

// "answers" and a table of (question, answer) for the analyses `report` holds; "" when none of
// them answers a question (a window alone).
std::string format_verdict(const AnalysisReport &report);

} // namespace cutrace

#endif
