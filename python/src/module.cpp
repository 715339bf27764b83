// The `cutrace._cutrace` extension module (docs/python.md): the C++ decoder's run files, tables,
// analyses and comparisons, and the torch.profiler merge. cutrace/__init__.py is its public face.
#include "results.h"
#include "run_file.h"
#include "tables.h"

#include <pybind11/stl.h>

namespace py = pybind11;
using cutrace::python::RunFile;

namespace cutrace::python {
void bind_torch_merge(py::module_ &m); // torch_merge.cpp
}

PYBIND11_MODULE(_cutrace, m) {
  m.doc() = "cutrace run files, decoded by the cutrace C++ decoder";
  py::class_<RunFile>(m, "RunFile")
      .def(py::init<std::string>(), py::arg("path"))
      .def_property_readonly("path", &RunFile::path)
      .def_property_readonly("origin_ns", [](const RunFile &f) { return f.run().origin_ns; })
      .def_property_readonly("host_aligned", [](const RunFile &f) { return f.run().host_aligned; })
      .def_property_readonly("problems", [](const RunFile &f) { return f.run().problems; })
      .def_property_readonly("completeness", &RunFile::completeness)
      .def("launches", &cutrace::python::launches_table)
      .def("rows", &cutrace::python::rows_table, py::arg("launches") = py::none())
      .def("slices", &cutrace::python::slices_table, py::arg("launches") = py::none())
      .def("instants", &cutrace::python::instants_table, py::arg("launches") = py::none())
      .def("flows", &cutrace::python::flows_table, py::arg("launches") = py::none());
  cutrace::python::bind_results(m);
  cutrace::python::bind_torch_merge(m);
}
