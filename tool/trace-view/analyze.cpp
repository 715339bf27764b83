// `trace-view analyze`: the analyses of one launch (docs/analysis.md).
#include "analyze.h"

#include "inputs.h"

namespace trace_view {

int analyze_command(int, char **) { usage_error("analyze: not built yet"); }

} // namespace trace_view
