// The run's launches, rows, slices, instants and flows as columns (docs/python.md, "Tables"): a
// dict of column name -> NumPy array (text columns: a list of str), in the order the table shows
// them; cutrace/__init__.py turns it into a structured array. Times are ns on the run's axis
// (RunTrace::origin_ns + t is host CLOCK_REALTIME ns when the run is host-aligned).
#ifndef CUTRACE_PYTHON_TABLES_H
#define CUTRACE_PYTHON_TABLES_H

#include "run_file.h"

#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace cutrace::python {

pybind11::dict launches_table(const RunFile &file);
pybind11::dict rows_table(const RunFile &file, const Selection &launches);
pybind11::dict slices_table(const RunFile &file, const Selection &launches);
pybind11::dict instants_table(const RunFile &file, const Selection &launches);
pybind11::dict flows_table(const RunFile &file, const Selection &launches);

} // namespace cutrace::python

#endif // CUTRACE_PYTHON_TABLES_H
