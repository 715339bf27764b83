// The HTML of a whole run (docs/viewer.md, "The HTML of a whole run"): the overview (every launch
// as a span on the run axis, per process, GPU and stream) always, and the detail of as many
// launches as the size bound holds, each in its own data element that the page parses only when it
// is opened. Detail goes first to the first launch of each kernel, then to the rest by sequence.
#include "html_page.h"
#include "run_json.h"
#include "run_labels.h"

#include <cutrace/export.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <tuple>

namespace cutrace {
namespace {

using nlohmann::json;
using namespace html_page;
using run_labels::device_label;
using run_labels::kernel_name;
using run_labels::stream_label;

// The overview's rows: one per (device, stream), ordered by process, device ordinal, stream.
struct Streams {
  std::vector<std::pair<uint32_t, uint64_t>> keys; // (device, stream)
  std::vector<uint32_t> of_launch;
};

Streams streams_of(const RunTrace &run) {
  Streams s;
  auto order = [&](const std::pair<uint32_t, uint64_t> &k) {
    const RunDevice *d = k.first < run.devices.size() ? &run.devices[k.first] : nullptr;
    return std::make_tuple(d ? d->process : 0u, d ? d->index : 0u, k.first, k.second);
  };
  for (const RunLaunch &l : run.launches)
    s.keys.emplace_back(l.device, l.stream);
  std::sort(s.keys.begin(), s.keys.end(), [&](auto &a, auto &b) { return order(a) < order(b); });
  s.keys.erase(std::unique(s.keys.begin(), s.keys.end()), s.keys.end());
  for (const RunLaunch &l : run.launches)
    s.of_launch.push_back(
        uint32_t(std::lower_bound(s.keys.begin(), s.keys.end(), std::make_pair(l.device, l.stream),
                                  [&](auto &a, auto &b) { return order(a) < order(b); }) -
                 s.keys.begin()));
  return s;
}

// Kernel names (sorted: stable colours) with launches recorded and skipped over all processes,
// from their END sections; recorded launches are counted here when a process has none.
json kernels_json(const RunTrace &run, std::map<std::string, int32_t> &ids) {
  std::map<std::string, std::pair<int64_t, int64_t>> counts; // recorded, skipped (-1: unknown)
  std::set<uint32_t> with_end;
  for (uint32_t p = 0; p < run.processes.size(); ++p)
    for (const auto &[name, seen_recorded] : run.processes[p].kernel_launches) {
      auto &c = counts.try_emplace(name, 0, 0).first->second;
      c.first += int64_t(seen_recorded.second);
      c.second +=
          int64_t(seen_recorded.first - std::min(seen_recorded.first, seen_recorded.second));
      with_end.insert(p);
    }
  for (const RunLaunch &l : run.launches) {
    const RunDevice *d = l.device < run.devices.size() ? &run.devices[l.device] : nullptr;
    auto &c = counts.try_emplace(kernel_name(run, l), 0, -1).first->second;
    if (!d || !with_end.count(d->process))
      c.first += 1;
  }
  json names = json::array(), recorded_skipped = json::array();
  for (const auto &[name, c] : counts) {
    ids[name] = int32_t(names.size());
    names.push_back(name);
    recorded_skipped.push_back({c.first, c.second});
  }
  return {{"names", names}, {"counts", recorded_skipped}};
}

// Everything but the launches' detail. `detail[i]` says whether launch i has it.
json overview_json(const RunTrace &run, const std::vector<bool> &detail, size_t max_bytes) {
  const RunCompleteness completeness = run_completeness(run);
  json processes = json::array(), devices = json::array(), streams = json::array(),
       maps = json::array();
  for (const RunProcess &p : run.processes)
    processes.push_back(run_json::process(p));
  for (const RunDevice &d : run.devices) {
    json device = run_json::device(d);
    device["label"] = device_label(run, d);
    devices.push_back(std::move(device));
  }
  const Streams s = streams_of(run);
  for (const auto &[device, stream] : s.keys) {
    const std::string where =
        device < run.devices.size() ? device_label(run, run.devices[device]) : "GPU ?";
    streams.push_back({{"device", device},
                       {"stream", stream_label(stream)},
                       {"label", where + " \u00b7 stream " + stream_label(stream)}});
  }
  for (const DecodeMap &m : run.maps)
    maps.push_back(map_data(m));
  std::map<std::string, int32_t> kernel_ids;
  const json kernels = kernels_json(run, kernel_ids);

  const size_t n = run.launches.size();
  std::vector<int32_t> stream(n), map(n), flags(n), kernel(n);
  std::vector<uint32_t> launch_index(n), grid(3 * n), block(3 * n);
  std::vector<double> sequence(n), b_ns(n), e_ns(n), q_ns(n);
  size_t with_detail = 0, unread = 0;
  json gaps = json::object(); // launch index -> what it did not record (only launches with gaps)
  for (size_t i = 0; i < n; ++i) {
    const RunLaunch &l = run.launches[i];
    const Completeness c = completeness_of(l);
    if (!c.complete())
      gaps[std::to_string(i)] = completeness_line(c);
    stream[i] = int32_t(s.of_launch[i]);
    map[i] = int32_t(l.map);
    flags[i] = (l.in_graph ? 1 : 0) | (detail[i] ? 0 : 2) | (l.detail ? 0 : 4);
    unread += !l.detail;
    with_detail += detail[i];
    kernel[i] = kernel_ids[kernel_name(run, l)];
    launch_index[i] = l.launch_index;
    for (int k = 0; k < 3; ++k)
      grid[3 * i + k] = l.grid[k], block[3 * i + k] = l.block[k];
    sequence[i] = double(l.sequence);
    b_ns[i] = l.begin_ns;
    e_ns[i] = l.end_ns;
    q_ns[i] = l.enqueue_ns ? *l.enqueue_ns : std::nan("");
  }
  return {{"origin_ns", run.origin_ns},
          {"host_aligned", run.host_aligned},
          {"hosts", run.hosts},
          {"host_clock_bound_ns", run_json::host_clock_bound(run)},
          {"processes", processes},
          {"devices", devices},
          {"streams", streams},
          {"maps", maps},
          {"kernels", kernels["names"]},
          {"kernel_counts", kernels["counts"]},
          {"problems", run.problems},
          {"completeness", run_completeness_text(completeness)},
          {"complete", completeness.complete()},
          {"gaps", gaps},
          {"detail",
           {{"count", with_detail},
            {"left_out", n - with_detail}, // unread ones included
            {"unread", unread},
            {"max_bytes", max_bytes}}},
          {"L",
           {{"n", n},
            {"stream", column(stream)},
            {"map", column(map)},
            {"flags", column(flags)},
            {"kernel", column(kernel)},
            {"launch_index", column(launch_index)},
            {"grid", column(grid)},
            {"block", column(block)},
            {"sequence", column(sequence)},
            {"b_ns", column(b_ns)},
            {"e_ns", column(e_ns)},
            {"q_ns", column(q_ns)}}}};
}

// The order in which launches get detail: the first launch of each kernel, then the rest; both
// by sequence (ties: process order).
std::vector<size_t> detail_order(const RunTrace &run) {
  auto key = [&](size_t i) {
    const RunLaunch &l = run.launches[i];
    const uint32_t p = l.device < run.devices.size() ? run.devices[l.device].process : 0;
    return std::make_tuple(l.sequence, p, i);
  };
  std::vector<size_t> order(run.launches.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
  std::set<std::string> seen;
  std::stable_partition(order.begin(), order.end(), [&](size_t i) {
    return seen.insert(kernel_name(run, run.launches[i])).second;
  });
  return order;
}

constexpr size_t kDetailOverhead = 96; // a data element's tags and id around its JSON
// After this many launches in a row whose built detail did not fit, the bound counts as reached.
constexpr int kMissesBeforeFull = 8;

} // namespace

// The page: head, overview data, the script, then the launches' detail, so the browser runs the
// script and paints the overview before it has parsed the (up to max_bytes of) detail.
std::string export_run_html(const RunTrace &run, const RunHtmlOptions &options) {
  const size_t n = run.launches.size();
  std::string title = "cutrace run";
  if (!run.processes.empty())
    title += ": " + run.processes[0].program;
  const std::string page_head = head(title);
  // The overview has the same size whatever gets detail, up to the digits of two counts.
  const size_t fixed =
      page_head.size() + std::strlen(kViewer) + std::strlen(kRunOverview) + std::strlen(kEnd) +
      std::strlen(kClose) + kDetailOverhead +
      script_safe(overview_json(run, std::vector<bool>(n, false), options.max_bytes)).size() + 64;
  std::vector<std::string> texts(n);
  std::vector<bool> detail(n, false);
  size_t used = fixed;
  int misses = 0;
  for (size_t i : detail_order(run)) {
    if (misses >= kMissesBeforeFull)
      break;
    const RunLaunch &l = run.launches[i];
    if (l.map >= run.maps.size() || !l.detail) // no records were read for it
      continue;
    const DecodeMap &map = run.maps[l.map];
    if (used + kDetailOverhead + launch_data_estimate(map, l.trace) > options.max_bytes)
      continue;
    std::string text = script_safe(launch_data(map, l.trace));
    if (used + kDetailOverhead + text.size() > options.max_bytes) {
      ++misses;
      continue;
    }
    misses = 0;
    used += kDetailOverhead + text.size();
    texts[i] = std::move(text);
    detail[i] = true;
  }
  std::string page = page_head;
  page.reserve(used); // pages of a large reservation become resident only as they are written
  append_data_element(page, "cutrace-data",
                      script_safe(overview_json(run, detail, options.max_bytes)));
  page += kViewer;
  page += kRunOverview;
  page += kEnd;
  for (size_t i = 0; i < n; ++i)
    if (detail[i]) {
      append_data_element(page, "cutrace-launch-" + std::to_string(i), texts[i]);
      std::string().swap(texts[i]);
    }
  page += kClose;
  return page;
}

} // namespace cutrace
