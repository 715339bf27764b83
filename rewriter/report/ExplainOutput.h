// Where --explain sends a run's report: the terminal (stderr), and/or one HTML file per input in
// this run's folder (a new timestamped folder per run, `latest` pointing at it).
#ifndef CUTRACE_REWRITER_REPORT_EXPLAINOUTPUT_H
#define CUTRACE_REWRITER_REPORT_EXPLAINOUTPUT_H

#include "report/RunReport.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <string>

namespace cutrace {

class ExplainOutput {
public:
  /// Where: "terminal", "html" or "both"; empty means no report. Dir holds the HTML run folders.
  static llvm::Expected<ExplainOutput> create(llvm::StringRef Where, std::string Dir);

  bool on() const { return Terminal || Html; }
  /// Renders the report where asked; problems writing HTML are one line on Errs, never fatal.
  void emit(const RunReport &Report, llvm::raw_ostream &Errs);

private:
  bool Terminal = false, Html = false;
  std::string Dir;
  std::string RunFolder; // created by the first HTML report of this run
};

} // namespace cutrace

#endif
