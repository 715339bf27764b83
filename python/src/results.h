// analyze() and diff() for Python (docs/python.md, "Analyses"): the C++ analyses of
// cutrace/analysis.h and cutrace/diff.h run on launches of opened runs, their result structs bound
// as read-only objects.
#ifndef CUTRACE_PYTHON_RESULTS_H
#define CUTRACE_PYTHON_RESULTS_H

#include "run_file.h"

#include <pybind11/pybind11.h>

namespace cutrace::python {

void bind_results(pybind11::module_ &m);

} // namespace cutrace::python

#endif // CUTRACE_PYTHON_RESULTS_H
