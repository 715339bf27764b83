// `trace-view --summary` / `--json` of a run (docs/viewer.md, "Runs in Perfetto and in the
// summary"): per process what was recorded and skipped, per GPU the clock alignment, launch
// durations per kernel, and per stream the busy time and the idle gaps between launches.
#include "completeness_json.h"
#include "run_json.h"
#include "run_labels.h"
#include "slice_groups_json.h"
#include "summary_table.h"

#include <cutrace/export.h>
#include <cutrace/run_trace.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>

namespace cutrace {

namespace {

using namespace summary_table;
using nlohmann::json;

// Launches of one stream in begin order: busy is their union, a gap is time between the end of
// everything before a launch and its begin.
RunStreamSummary stream_summary(const RunTrace &run, uint64_t stream,
                                const std::vector<uint32_t> &launches) {
  RunStreamSummary s;
  s.stream = stream;
  s.launches = launches.size();
  double covered_to = 0;
  for (size_t i = 0; i < launches.size(); ++i) {
    const RunLaunch &l = run.launches[launches[i]];
    if (i == 0) {
      s.first_begin_ns = l.begin_ns;
      covered_to = l.begin_ns;
    } else if (l.begin_ns > covered_to) {
      const double gap = l.begin_ns - covered_to;
      ++s.gaps;
      s.gap_total_ns += gap;
      s.gap_max_ns = std::max(s.gap_max_ns, gap);
    }
    s.busy_ns += std::max(0.0, l.end_ns - std::max(l.begin_ns, covered_to));
    covered_to = std::max(covered_to, l.end_ns);
    s.last_end_ns = std::max(s.last_end_ns, l.end_ns);
  }
  return s;
}

std::string us(double ns) { return num(ns / 1000.0, 3); }

std::string process_title(const RunProcess &p) {
  std::string out = p.rank >= 0 ? "rank " + std::to_string(p.rank) : "";
  if (p.local_rank >= 0)
    out += out.empty() ? "local rank " + std::to_string(p.local_rank)
                       : " (local " + std::to_string(p.local_rank) + ")";
  if (!out.empty())
    out += ": ";
  if (!p.program.empty() || p.pid) { // a single-launch file records neither
    out += printable(p.program.empty() ? "?" : p.program) + " (pid " + std::to_string(p.pid);
    if (!p.host.empty())
      out += " on " + printable(p.host);
    out += ") from ";
  }
  out += printable(p.file.empty() ? "memory" : p.file);
  return out + (p.complete ? "" : "; the run did not finish writing (no END section)");
}

// Processes of several hosts are placed by their own hosts' clocks: how far apart those may be.
std::string time_axis(const RunTrace &run) {
  if (!run.host_aligned)
    return "GPU globaltimer";
  if (run.hosts < 2)
    return "host clock";
  return "the clocks of " + std::to_string(run.hosts) + " hosts, " +
         (run.host_clock_bound_ns
              ? "processes of different hosts within " + us(double(*run.host_clock_bound_ns)) +
                    " \u00b5s of each other"
              : "not known to agree");
}

std::string alignment(const RunDevice &d) {
  if (!d.aligned)
    return "not aligned";
  return "host clock aligned \u00b1" + us(double(d.alignment_error_ns)) + " \u00b5s" +
         (d.aligned_at_end_only ? " (measured at the run's end only: its drift over the run is "
                                  "not known)"
                                : "");
}

// What the markers cost on the device and whether the times shown have it taken out.
std::string marker_cost(const RunDevice &d) {
  if (!d.marker_cost)
    return "marker cost not known (" + printable(d.marker_cost_problem) + "): times as recorded";
  return describe_marker_cost(*d.marker_cost) + " (measured at run start): " +
         (d.marker_cost_taken_out ? "taken out inside slices (--raw-times keeps it)"
                                  : "times as recorded");
}

json durations_json(const Durations &d) {
  return {{"total", d.total}, {"mean", d.mean}, {"p50", d.p50}, {"p95", d.p95}, {"max", d.max}};
}

bool same_groups(const DecodeMap &a, const DecodeMap &b) {
  if (a.groups.size() != b.groups.size())
    return false;
  for (size_t g = 0; g < a.groups.size(); ++g)
    if (a.groups[g].name != b.groups[g].name ||
        a.groups[g].slice_threads != b.groups[g].slice_threads ||
        a.groups[g].first_thread != b.groups[g].first_thread)
      return false;
  return true;
}

// A kernel's sliced groups over its launches with records (by map: the same kernel name from
// several files or processes counts only the launches whose map has the first one's groups).
std::vector<SliceGroupSummary>
kernel_slices(const RunTrace &run, const std::map<uint32_t, std::vector<const Trace *>> &by_map) {
  const DecodeMap *first = nullptr;
  std::vector<const Trace *> traces;
  for (const auto &[m, of_map] : by_map) {
    const DecodeMap &map = run.maps[m];
    if (!map.any_sliced())
      continue;
    if (!first)
      first = &map;
    if (same_groups(*first, map))
      traces.insert(traces.end(), of_map.begin(), of_map.end());
  }
  return first ? summarize_slices(*first, traces) : std::vector<SliceGroupSummary>{};
}

} // namespace

RunSummary summarize_run(const RunTrace &run) {
  RunSummary s;
  s.launches = run.launches.size();
  struct Samples {
    std::vector<double> durations;
    uint64_t enqueued = 0;
    double enqueue_to_start = 0;
    std::map<uint32_t, std::vector<const Trace *>> decoded; // by map: launches with records
  };
  std::vector<std::map<std::string, Samples>> kernels(run.devices.size());
  std::vector<std::map<uint64_t, std::vector<uint32_t>>> streams(run.devices.size());
  double first = 0, last = 0;
  for (uint32_t li = 0; li < run.launches.size(); ++li) {
    const RunLaunch &l = run.launches[li];
    first = li ? std::min(first, l.begin_ns) : l.begin_ns;
    last = li ? std::max(last, l.end_ns) : l.end_ns;
    if (l.device >= run.devices.size())
      continue;
    Samples &k = kernels[l.device][run_labels::kernel_name(run, l)];
    k.durations.push_back(l.end_ns - l.begin_ns);
    if (l.enqueue_ns) {
      ++k.enqueued;
      k.enqueue_to_start += l.begin_ns - *l.enqueue_ns;
    }
    if (l.detail && l.map < run.maps.size())
      k.decoded[l.map].push_back(&l.trace);
    streams[l.device][l.stream].push_back(li); // launches are sorted by begin
  }
  s.span_ns = last - first;
  for (uint32_t d = 0; d < run.devices.size(); ++d) {
    RunDeviceSummary dev;
    dev.device = d;
    for (auto &[name, k] : kernels[d]) {
      RunKernelSummary ks;
      ks.kernel = name;
      ks.launches = k.durations.size();
      ks.duration_ns = durations_of(std::move(k.durations));
      ks.enqueued = k.enqueued;
      ks.mean_enqueue_to_start_ns = k.enqueued ? k.enqueue_to_start / double(k.enqueued) : 0;
      ks.slice_groups = kernel_slices(run, k.decoded);
      dev.kernels.push_back(std::move(ks));
    }
    for (const auto &[stream, launches] : streams[d])
      dev.streams.push_back(stream_summary(run, stream, launches));
    s.devices.push_back(std::move(dev));
  }
  return s;
}

std::string run_summary(const RunTrace &run) {
  const RunSummary s = summarize_run(run);
  std::string out =
      "run: " + std::to_string(s.launches) + " launches, " + std::to_string(run.processes.size()) +
      " process" + (run.processes.size() == 1 ? "" : "es") + ", " +
      std::to_string(run.devices.size()) + " GPU" + (run.devices.size() == 1 ? "" : "s") + ", " +
      us(s.span_ns) + " \u00b5s from first begin to last end; time axis: " + time_axis(run) + "\n";
  out += run_completeness_text(run_completeness(run));
  for (uint32_t p = 0; p < run.processes.size(); ++p) {
    const RunProcess &proc = run.processes[p];
    out += "\nprocess " + process_title(proc) + "\n";
    if (!proc.launches.empty() || !proc.kernels.empty())
      out += "  selection:" +
             (proc.launches.empty() ? "" : " launches '" + printable(proc.launches) + "'") +
             (proc.kernels.empty() ? "" : " kernels '" + printable(proc.kernels) + "'") + "\n";
    if (!proc.kernel_launches.empty()) {
      Table k({"kernel", "seen", "recorded", "skipped"});
      for (const auto &[name, counts] : proc.kernel_launches)
        k.add({printable(name), count(counts.first), count(counts.second),
               count(counts.first - std::min(counts.first, counts.second))});
      out += k.str();
    }
    if (proc.pool_waits || proc.pool_skipped || proc.disk_skipped)
      out += "  buffer pool waits " + count(proc.pool_waits) + ", skipped: pool full " +
             count(proc.pool_skipped) + ", disk " + count(proc.disk_skipped) + "\n";
    for (const RunDeviceSummary &dev : s.devices) {
      const RunDevice &d = run.devices[dev.device];
      if (d.process != p)
        continue;
      out += "\n  GPU " + std::to_string(d.index) + " (" + printable(d.name.empty() ? "?" : d.name);
      if (d.sms)
        out += ", " + std::to_string(d.sms) + " SMs";
      if (d.clock_khz)
        out += ", " + std::to_string(d.clock_khz / 1000) + " MHz";
      out += "): " + alignment(d) + "\n  " + marker_cost(d) + "\n";
      Table k({"kernel", "launches", "total \u00b5s", "mean \u00b5s", "p50 \u00b5s", "max \u00b5s",
               "enqueue\u2192start \u00b5s"});
      for (const RunKernelSummary &ks : dev.kernels)
        k.add({printable(ks.kernel), count(ks.launches), us(ks.duration_ns.total),
               us(ks.duration_ns.mean), us(ks.duration_ns.p50), us(ks.duration_ns.max),
               ks.enqueued ? us(ks.mean_enqueue_to_start_ns) : "-"});
      out += k.str("    ");
      Table st({"stream", "launches", "busy \u00b5s", "span \u00b5s", "gaps", "idle \u00b5s",
                "max idle \u00b5s"});
      for (const RunStreamSummary &ss : dev.streams)
        st.add({run_labels::stream_label(ss.stream), count(ss.launches), us(ss.busy_ns),
                us(ss.last_end_ns - ss.first_begin_ns), count(ss.gaps), us(ss.gap_total_ns),
                us(ss.gap_max_ns)});
      out += st.str("    ");
      for (const RunKernelSummary &ks : dev.kernels)
        if (!ks.slice_groups.empty())
          out += "\n    kernel " + printable(ks.kernel) + ", " +
                 format_slice_groups(ks.slice_groups, "    ").substr(4);
    }
  }
  if (!run.problems.empty()) {
    out += "\nproblems " + std::to_string(run.problems.size()) + "\n";
    for (size_t i = 0; i < run.problems.size() && i < 10; ++i)
      out += "  problem: " + printable(run.problems[i]) + "\n";
    if (run.problems.size() > 10)
      out += "  ... " + std::to_string(run.problems.size() - 10) + " more problems\n";
  }
  return out;
}

namespace {
// A launch's completeness as its row headers say it: the same after a lean read as a full one.
Completeness header_completeness(const RunLaunch &l) {
  Completeness c = completeness_of(l);
  c.incomplete_slices = 0;
  return c;
}
} // namespace

std::string run_summary_json(const RunTrace &run) {
  const RunSummary s = summarize_run(run);
  json processes = json::array();
  for (const RunProcess &p : run.processes)
    processes.push_back(run_json::process(p));
  json devices = json::array();
  for (const RunDeviceSummary &dev : s.devices) {
    const RunDevice &d = run.devices[dev.device];
    json kernels = json::array(), streams = json::array();
    for (const RunKernelSummary &k : dev.kernels) {
      json kernel = {{"kernel", k.kernel},
                     {"launches", k.launches},
                     {"duration_ns", durations_json(k.duration_ns)},
                     {"enqueued", k.enqueued},
                     {"mean_enqueue_to_start_ns",
                      k.enqueued ? json(k.mean_enqueue_to_start_ns) : json(nullptr)}};
      if (!k.slice_groups.empty())
        kernel["slice_groups"] = slice_groups_json(k.slice_groups);
      kernels.push_back(std::move(kernel));
    }
    for (const RunStreamSummary &st : dev.streams)
      streams.push_back({{"stream", st.stream},
                         {"launches", st.launches},
                         {"first_begin_ns", st.first_begin_ns},
                         {"last_end_ns", st.last_end_ns},
                         {"busy_ns", st.busy_ns},
                         {"gaps", st.gaps},
                         {"gap_total_ns", st.gap_total_ns},
                         {"gap_max_ns", st.gap_max_ns}});
    json device = run_json::device(d);
    device["kernels"] = std::move(kernels);
    device["streams"] = std::move(streams);
    devices.push_back(std::move(device));
  }
  json launches = json::array();
  for (const RunLaunch &l : run.launches) {
    const bool known = l.device < run.devices.size();
    launches.push_back({{"sequence", l.sequence},
                        {"kernel", run_labels::kernel_name(run, l)},
                        {"launch_index", l.launch_index},
                        {"process", known ? json(run.devices[l.device].process) : json(nullptr)},
                        {"device", known ? json(run.devices[l.device].index) : json(nullptr)},
                        {"stream", l.stream},
                        {"in_graph", l.in_graph},
                        {"grid", {l.grid[0], l.grid[1], l.grid[2]}},
                        {"block", {l.block[0], l.block[1], l.block[2]}},
                        {"begin_ns", l.begin_ns},
                        {"end_ns", l.end_ns},
                        {"enqueue_ns", l.enqueue_ns ? json(*l.enqueue_ns) : json(nullptr)},
                        {"completeness", completeness_json(header_completeness(l))}});
  }
  const json doc = {{"origin_ns", run.origin_ns},
                    {"host_aligned", run.host_aligned},
                    {"hosts", run.hosts},
                    {"host_clock_bound_ns", run_json::host_clock_bound(run)},
                    {"launches_recorded", s.launches},
                    {"span_ns", s.span_ns},
                    {"processes", processes},
                    {"devices", devices},
                    {"launches", launches},
                    {"problems", run.problems},
                    {"completeness", run_completeness_json(run_completeness(run))}};
  return doc.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

} // namespace cutrace
