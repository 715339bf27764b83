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

// The tail of a launch of fewer than TailReport::kFewCtas CTAs, where the 95th percentile is the
// last CTA: how long after the next-to-last CTA the last one finished.
std::string few_ctas_tail(const TailReport &tail);

} // namespace cutrace

#endif
