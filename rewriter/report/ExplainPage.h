// The --explain=html report's stylesheet and script, the files rewriter/report/explain.css and
// explain.js embedded at configure time (ExplainPage.cpp.in; docs/design.md, "The viewer page").
#ifndef CUTRACE_REPORT_EXPLAINPAGE_H
#define CUTRACE_REPORT_EXPLAINPAGE_H

namespace cutrace::explain_page {
extern const char *const Style;
extern const char *const Script;
} // namespace cutrace::explain_page

#endif // CUTRACE_REPORT_EXPLAINPAGE_H
