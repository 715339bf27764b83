// cutrace.torch.merge (docs/torch.md): trace-view merge-torch for an opened run, the output
// written all or nothing through cutrace/output_files.h.
#include "run_file.h"

#include <cutrace/output_files.h>
#include <cutrace/torch_merge.h>

#include <pybind11/stl.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace py = pybind11;

namespace cutrace::python {

namespace {

TorchMergeReport merge(const std::string &profiler, const RunFile &file, const std::string &output,
                       double tolerance_us) {
  std::ifstream in(profiler, std::ios::binary);
  std::stringstream text;
  if (!in || !(text << in.rdbuf()))
    throw std::runtime_error("cannot read '" + profiler + "'");
  TorchMergeOptions options;
  options.tolerance_ns = tolerance_us * 1000;
  options.load_detail = [&file](const RunLaunch &l) { return with_detail(file.run(), l); };
  std::optional<TorchMergeReport> report;
  std::string refused;
  OutputSet out;
  std::optional<OutputFailure> failed =
      out.add_streamed(output, [&](const OutputSet::Sink &sink) -> std::optional<std::string> {
        Expected<TorchMergeReport> r = merge_torch_profile(text.str(), file.run(), sink, options);
        if (!r)
          return refused = r.error;
        report = std::move(*r);
        return std::nullopt;
      });
  if (!refused.empty())
    throw std::runtime_error(refused);
  if (!failed)
    failed = out.commit();
  if (failed)
    throw std::runtime_error(failed->message);
  return std::move(*report);
}

} // namespace

void bind_torch_merge(py::module_ &m) {
  py::class_<TorchMatch>(m, "TorchMatch")
      .def_readonly("sequence", &TorchMatch::sequence)
      .def_readonly("kernel", &TorchMatch::kernel)
      .def_readonly("profiler_name", &TorchMatch::profiler_name)
      .def_readonly("pid", &TorchMatch::pid)
      .def_readonly("tid", &TorchMatch::tid)
      .def_readonly("shift_ns", &TorchMatch::shift_ns);
  py::class_<TorchMergeReport>(m, "TorchMergeReport")
      .def_readonly("profiler_events", &TorchMergeReport::profiler_events)
      .def_readonly("profiler_kernels", &TorchMergeReport::profiler_kernels)
      .def_readonly("matched", &TorchMergeReport::matched)
      .def_readonly("unmatched", &TorchMergeReport::unmatched)
      .def_readonly("streams", &TorchMergeReport::streams)
      .def_readonly("max_shift_ns", &TorchMergeReport::max_shift_ns)
      .def_readonly("clock_offset_ns", &TorchMergeReport::clock_offset_ns);
  m.def("merge_torch", &merge, py::arg("profiler"), py::arg("run"), py::arg("output"),
        py::arg("tolerance_us") = 20.0);
  m.def("torch_kernel_base_name", &torch_kernel_base_name);
}

} // namespace cutrace::python
