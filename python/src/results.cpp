#include "results.h"

#include <cutrace/analysis.h>
#include <cutrace/diff.h>

#include <pybind11/stl.h>

#include <set>
#include <stdexcept>

namespace py = pybind11;

namespace cutrace::python {

namespace {

// The launch `sequence`, or the run's only launch.
RunLaunch one_launch(const RunFile &file, std::optional<uint64_t> sequence) {
  if (!sequence && file.run().launches.size() != 1)
    throw std::invalid_argument(file.path() + " holds " +
                                std::to_string(file.run().launches.size()) +
                                " launches: choose one with launch=N (its sequence number)");
  const std::vector<size_t> index =
      file.select(sequence ? Selection{{*sequence}} : Selection{});
  return file.detailed(index.front());
}

AnalysisReport analyze(const RunFile &file, std::optional<uint64_t> sequence,
                       std::optional<uint32_t> cta, uint32_t bins, size_t top,
                       std::optional<std::string> name) {
  RunLaunch l = one_launch(file, sequence);
  const DecodeMap &map = file.run().maps[l.map];
  Trace trace = std::move(l.trace);
  if (cta) {
    if (*cta >= trace.header.num_ctas())
      throw std::out_of_range("no CTA " + std::to_string(*cta) + " (the grid has " +
                              std::to_string(trace.header.num_ctas()) + ")");
    trace = restrict_to_cta(trace, *cta);
  }
  AnalysisReport report;
  report.kernel = trace.kernel;
  report.header = trace.header;
  report.launch = l.sequence;
  report.cta = cta;
  report.completeness = completeness_of(trace);
  report.handoffs = analyze_handoffs(map, trace);
  report.busy = analyze_busy(map, trace);
  report.tail = analyze_tail(trace);
  report.histograms = duration_histograms(trace, bins, name);
  report.outliers = slowest_slices(trace, top, name);
  report.loops = analyze_loops(trace);
  return report;
}

// One side of a diff: the chosen launches of `kernel` (all of them when `sequence` is none),
// decoded and kept alive while the comparison reads them.
struct Side {
  std::vector<RunLaunch> launches;
  DiffSide side;
};

std::set<std::string> kernels_of(const RunFile &file, std::optional<uint64_t> sequence) {
  std::set<std::string> kernels;
  for (size_t i : file.select(sequence ? Selection{{*sequence}} : Selection{}))
    kernels.insert(file.kernel(file.run().launches[i]));
  return kernels;
}

Side side_of(const RunFile &file, std::optional<uint64_t> sequence, const std::string &kernel) {
  Side s;
  for (size_t i : file.select(sequence ? Selection{{*sequence}} : Selection{}))
    if (file.kernel(file.run().launches[i]) == kernel) {
      s.launches.push_back(file.detailed(i));
      if (s.launches.back().trace.rows.empty())
        s.launches.pop_back();
    }
  if (s.launches.empty())
    throw std::invalid_argument(file.path() + ": no decoded launch of kernel " + kernel);
  for (const RunLaunch &l : s.launches)
    s.side.launches.push_back(&l.trace);
  s.side.label = file.path();
  if (sequence)
    s.side.label += " launch " + std::to_string(*sequence);
  return s;
}

// The kernel both sides compare: the one given, else the single kernel the two sides share.
std::string common_kernel(const RunFile &a, std::optional<uint64_t> la, const RunFile &b,
                          std::optional<uint64_t> lb, const std::optional<std::string> &kernel) {
  if (kernel)
    return *kernel;
  const std::set<std::string> ka = kernels_of(a, la), kb = kernels_of(b, lb);
  std::vector<std::string> shared;
  for (const std::string &k : ka)
    if (kb.count(k))
      shared.push_back(k);
  if (shared.size() == 1)
    return shared.front();
  throw std::invalid_argument(shared.empty()
                                  ? "A and B share no kernel: name one with kernel=..."
                                  : "A and B share several kernels: choose one with kernel=...");
}

TraceDiff diff(const RunFile &a, const RunFile &b, std::optional<std::string> kernel,
               std::optional<uint64_t> launch_a, std::optional<uint64_t> launch_b) {
  const std::string k = common_kernel(a, launch_a, b, launch_b, kernel);
  const Side sa = side_of(a, launch_a, k), sb = side_of(b, launch_b, k);
  return diff_traces(sa.side, sb.side);
}

template <class T> py::class_<T> result(py::module_ &m, const char *name) {
  return py::class_<T>(m, name);
}

void bind_completeness(py::module_ &m) {
  result<Completeness>(m, "Completeness")
      .def_readonly("dropped_events", &Completeness::dropped_events)
      .def_readonly("rows_overflowed", &Completeness::rows_overflowed)
      .def_readonly("incomplete_slices", &Completeness::incomplete_slices)
      .def_readonly("rows_never_ended", &Completeness::rows_never_ended)
      .def_readonly("decode_problems", &Completeness::decode_problems)
      .def_property_readonly("complete", &Completeness::complete)
      .def("__repr__", [](const Completeness &c) { return completeness_line(c); });
  result<UndecodedLaunch>(m, "UndecodedLaunch")
      .def_readonly("file", &UndecodedLaunch::file)
      .def_readonly("sequence", &UndecodedLaunch::sequence)
      .def_readonly("kernel", &UndecodedLaunch::kernel)
      .def_readonly("why", &UndecodedLaunch::why)
      .def("__repr__", [](const UndecodedLaunch &u) { return undecoded_name(u) + ": " + u.why; });
  result<RunCompleteness>(m, "RunCompleteness")
      .def_readonly("events", &RunCompleteness::events)
      .def_readonly("launches", &RunCompleteness::launches)
      .def_readonly("launches_decoded", &RunCompleteness::launches_decoded)
      .def_readonly("launches_incomplete", &RunCompleteness::launches_incomplete)
      .def_readonly("undecoded", &RunCompleteness::undecoded)
      .def_readonly("recorded_not_in_file", &RunCompleteness::recorded_not_in_file)
      .def_readonly("unfinished_processes", &RunCompleteness::unfinished_processes)
      .def_property_readonly("complete", &RunCompleteness::complete)
      .def("__repr__", [](const RunCompleteness &c) { return run_completeness_text(c); });
}

void bind_analysis(py::module_ &m) {
  result<Durations>(m, "Durations")
      .def_readonly("total", &Durations::total)
      .def_readonly("mean", &Durations::mean)
      .def_readonly("p50", &Durations::p50)
      .def_readonly("p95", &Durations::p95)
      .def_readonly("max", &Durations::max);
  result<HandoffPair>(m, "HandoffPair")
      .def_readonly("src", &HandoffPair::src)
      .def_readonly("dst", &HandoffPair::dst)
      .def_readonly("count", &HandoffPair::count)
      .def_readonly("waited", &HandoffPair::waited)
      .def_readonly("wait_ns", &HandoffPair::wait_ns)
      .def_readonly("wait_cycles", &HandoffPair::wait_cycles)
      .def_readonly("gap_ns", &HandoffPair::gap_ns)
      .def_readonly("gap_cycles", &HandoffPair::gap_cycles)
      .def_readonly("after_ns", &HandoffPair::after_ns)
      .def_readonly("after_cycles", &HandoffPair::after_cycles)
      .def_readonly("incomplete", &HandoffPair::incomplete)
      .def_readonly("dst_rows", &HandoffPair::dst_rows)
      .def_readonly("dst_life_ns", &HandoffPair::dst_life_ns)
      .def_property_readonly("wait_fraction", &HandoffPair::wait_fraction);
  result<RowBusy>(m, "RowBusy")
      .def_readonly("row", &RowBusy::row)
      .def_readonly("cta", &RowBusy::cta)
      .def_readonly("smid", &RowBusy::smid)
      .def_readonly("group", &RowBusy::group)
      .def_readonly("label", &RowBusy::label)
      .def_readonly("life_ns", &RowBusy::life_ns)
      .def_readonly("busy_ns", &RowBusy::busy_ns)
      .def_readonly("wait_ns", &RowBusy::wait_ns)
      .def_readonly("dropped", &RowBusy::dropped)
      .def_readonly("never_ended", &RowBusy::never_ended)
      .def_readonly("incomplete", &RowBusy::incomplete)
      .def_property_readonly("idle_ns", &RowBusy::idle_ns);
  result<BusyTotals>(m, "BusyTotals")
      .def_readonly("name", &BusyTotals::name)
      .def_readonly("group", &BusyTotals::group)
      .def_readonly("rows", &BusyTotals::rows)
      .def_readonly("ctas", &BusyTotals::ctas)
      .def_readonly("rows_with_gaps", &BusyTotals::rows_with_gaps)
      .def_readonly("life_ns", &BusyTotals::life_ns)
      .def_readonly("busy_ns", &BusyTotals::busy_ns)
      .def_readonly("wait_ns", &BusyTotals::wait_ns)
      .def_property_readonly("idle_ns", &BusyTotals::idle_ns)
      .def_property_readonly("busy_fraction", &BusyTotals::busy_fraction)
      .def_property_readonly("wait_fraction", &BusyTotals::wait_fraction);
  result<BusyReport>(m, "BusyReport")
      .def_readonly("groups", &BusyReport::groups)
      .def_readonly("labels", &BusyReport::labels)
      .def_readonly("rows", &BusyReport::rows);
  result<CtaSpan>(m, "CtaSpan")
      .def_readonly("cta", &CtaSpan::cta)
      .def_readonly("smid", &CtaSpan::smid)
      .def_readonly("start_ns", &CtaSpan::start_ns)
      .def_readonly("finish_ns", &CtaSpan::finish_ns)
      .def_readonly("cut", &CtaSpan::cut);
  result<SmSpan>(m, "SmSpan")
      .def_readonly("smid", &SmSpan::smid)
      .def_readonly("ctas", &SmSpan::ctas)
      .def_readonly("first_start_ns", &SmSpan::first_start_ns)
      .def_readonly("last_finish_ns", &SmSpan::last_finish_ns)
      .def_readonly("max_concurrent", &SmSpan::max_concurrent);
  result<TailReport>(m, "TailReport")
      .def_readonly("ctas", &TailReport::ctas)
      .def_readonly("sms", &TailReport::sms)
      .def_readonly("last", &TailReport::last)
      .def_readonly("kernel_start_ns", &TailReport::kernel_start_ns)
      .def_readonly("kernel_end_ns", &TailReport::kernel_end_ns)
      .def_readonly("p95_finish_ns", &TailReport::p95_finish_ns)
      .def_readonly("tail_ns", &TailReport::tail_ns)
      .def_readonly("cta_duration_ns", &TailReport::cta_duration_ns)
      .def_readonly("max_concurrent_per_sm", &TailReport::max_concurrent_per_sm)
      .def_readonly("waves", &TailReport::waves)
      .def_readonly("full_waves", &TailReport::full_waves);
  result<Histogram>(m, "Histogram")
      .def_readonly("name", &Histogram::name)
      .def_readonly("count", &Histogram::count)
      .def_readonly("incomplete", &Histogram::incomplete)
      .def_readonly("min_ns", &Histogram::min_ns)
      .def_readonly("max_ns", &Histogram::max_ns)
      .def_readonly("bin_width_ns", &Histogram::bin_width_ns)
      .def_readonly("bins", &Histogram::bins)
      .def_readonly("values", &Histogram::values);
  result<Outlier>(m, "Outlier")
      .def_readonly("name", &Outlier::name)
      .def_readonly("row", &Outlier::row)
      .def_readonly("cta", &Outlier::cta)
      .def_readonly("smid", &Outlier::smid)
      .def_readonly("label", &Outlier::label)
      .def_readonly("payload", &Outlier::payload)
      .def_readonly("begin_ns", &Outlier::begin_ns)
      .def_readonly("duration_ns", &Outlier::duration_ns)
      .def_readonly("begin_cycles", &Outlier::begin_cycles)
      .def_readonly("duration_cycles", &Outlier::duration_cycles)
      .def_readonly("incomplete", &Outlier::incomplete);
  result<LoopRow>(m, "LoopRow")
      .def_readonly("row", &LoopRow::row)
      .def_readonly("cta", &LoopRow::cta)
      .def_readonly("smid", &LoopRow::smid)
      .def_readonly("label", &LoopRow::label)
      .def_readonly("iterations", &LoopRow::iterations)
      .def_readonly("stored", &LoopRow::stored)
      .def_readonly("first_begin_ns", &LoopRow::first_begin_ns)
      .def_readonly("last_end_ns", &LoopRow::last_end_ns);
  result<LoopReport>(m, "LoopReport")
      .def_readonly("name", &LoopReport::name)
      .def_readonly("rows", &LoopReport::rows)
      .def_readonly("iterations", &LoopReport::iterations)
      .def_readonly("span_ns", &LoopReport::span_ns);
  result<AnalysisReport>(m, "Analysis")
      .def_readonly("kernel", &AnalysisReport::kernel)
      .def_readonly("launch", &AnalysisReport::launch)
      .def_readonly("cta", &AnalysisReport::cta)
      .def_readonly("completeness", &AnalysisReport::completeness)
      .def_readonly("handoffs", &AnalysisReport::handoffs)
      .def_readonly("busy", &AnalysisReport::busy)
      .def_readonly("tail", &AnalysisReport::tail)
      .def_readonly("histograms", &AnalysisReport::histograms)
      .def_readonly("outliers", &AnalysisReport::outliers)
      .def_readonly("loops", &AnalysisReport::loops)
      .def("to_json", &analysis_json)
      .def("__str__", &format_analysis);
}

void bind_diff(py::module_ &m) {
  result<DiffStats>(m, "DiffStats")
      .def_readonly("count", &DiffStats::count)
      .def_readonly("incomplete", &DiffStats::incomplete)
      .def_readonly("ns", &DiffStats::ns)
      .def_readonly("mean_cycles", &DiffStats::mean_cycles)
      .def_readonly("ctas", &DiffStats::ctas)
      .def_property_readonly("total_per_cta_ns", &DiffStats::total_per_cta_ns)
      .def_property_readonly("count_per_cta", &DiffStats::count_per_cta);
  result<DiffRow>(m, "DiffRow")
      .def_property_readonly("kind", [](const DiffRow &r) { return diff_kind_name(r.kind); })
      .def_readonly("name", &DiffRow::name)
      .def_readonly("a", &DiffRow::a)
      .def_readonly("b", &DiffRow::b)
      .def_readonly("impact_ns", &DiffRow::impact_ns)
      .def_readonly("relative", &DiffRow::relative)
      .def_readonly("threshold", &DiffRow::threshold)
      .def_readonly("within_noise", &DiffRow::within_noise)
      .def_readonly("noise_refused", &DiffRow::noise_refused);
  result<TraceDiff>(m, "Diff")
      .def_readonly("kernel_a", &TraceDiff::kernel_a)
      .def_readonly("kernel_b", &TraceDiff::kernel_b)
      .def_readonly("label_a", &TraceDiff::label_a)
      .def_readonly("label_b", &TraceDiff::label_b)
      .def_readonly("launches_a", &TraceDiff::launches_a)
      .def_readonly("launches_b", &TraceDiff::launches_b)
      .def_readonly("ctas_a", &TraceDiff::ctas_a)
      .def_readonly("ctas_b", &TraceDiff::ctas_b)
      .def_readonly("rows", &TraceDiff::rows)
      .def_readonly("warnings", &TraceDiff::warnings)
      .def_readonly("completeness_a", &TraceDiff::completeness_a)
      .def_readonly("completeness_b", &TraceDiff::completeness_b)
      .def("to_json", &diff_json)
      .def("__str__", [](const TraceDiff &d) { return format_diff(d); });
}

} // namespace

void bind_results(py::module_ &m) {
  bind_completeness(m);
  bind_analysis(m);
  bind_diff(m);
  m.def("analyze", &analyze, py::arg("run"), py::arg("launch") = py::none(),
        py::arg("cta") = py::none(), py::arg("bins") = 20, py::arg("top") = 10,
        py::arg("name") = py::none());
  m.def("diff", &diff, py::arg("a"), py::arg("b"), py::arg("kernel") = py::none(),
        py::arg("launch_a") = py::none(), py::arg("launch_b") = py::none());
}

} // namespace cutrace::python
