// A whole run in Perfetto's native trace format, launch by launch (docs/viewer.md, "Runs in
// Perfetto and in the summary"): a top track per (process, GPU) holding a "host" track of enqueue
// instants, a track per stream (one slice per launch, its completeness in its args) and tracks
// per SM slot holding the rows of every launch that ran there (pftrace_rows.h). Launches are
// written in the order they began, each read and decoded when its turn comes and freed after, so
// a run of any length costs the memory of its largest launch. A "run" track says at the end what
// the run lost: its completeness, and each launch that was not decoded.
#include "pftrace_rows.h"
#include "pftrace_writer.h"
#include "run_labels.h"

#include <cutrace/completeness.h>
#include <cutrace/export.h>
#include <cutrace/run_trace.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace cutrace {

namespace pftrace {
void completeness_args(EventArgs &args, const Completeness &c); // export_pftrace.cpp
}

namespace {

using namespace pftrace;

int64_t whole(double ns) { return int64_t(std::llround(ns)); }

// Sibling ranks under a GPU's track: host, then streams, then SM slots.
constexpr int32_t kStreamRank = 1'000, kSmRank = 1'000'000;

struct DeviceTracks {
  uint64_t root = 0, host = 0;
  std::map<uint32_t, uint64_t> stream_lane_track; // by launch index: its stream lane's track
  std::optional<SmSlotTracks> sm_slots;           // the rows of every launch, under root
};

std::string stream_name(uint64_t stream, size_t lane) {
  const std::string name = "stream " + run_labels::stream_label(stream);
  return lane ? name + " (" + std::to_string(lane + 1) + ")" : name;
}

// Each device's tracks that the run's launch list decides: GPU, host, stream lanes (launches of
// one stream on as few tracks as keep them from overlapping, as in the JSON export).
std::vector<DeviceTracks> device_tracks(TraceWriter &out, const RunTrace &run) {
  std::vector<DeviceTracks> devices(run.devices.size());
  for (uint32_t d = 0; d < run.devices.size(); ++d) {
    DeviceTracks &dt = devices[d];
    dt.root = out.track(run_labels::device_label(run, run.devices[d]), 0, std::nullopt, true);
    dt.sm_slots.emplace(dt.root, kSmRank);
    std::map<uint64_t, std::vector<uint32_t>> streams;
    bool enqueued = false;
    for (uint32_t li = 0; li < run.launches.size(); ++li) // sorted by begin
      if (run.launches[li].device == d) {
        streams[run.launches[li].stream].push_back(li);
        enqueued = enqueued || run.launches[li].enqueue_ns.has_value();
      }
    if (enqueued)
      dt.host = out.track("host", dt.root, 0);
    int32_t rank = kStreamRank;
    for (const auto &[stream, launches] : streams) {
      std::vector<double> lane_end;
      std::vector<uint64_t> lane_track;
      for (uint32_t li : launches) {
        const RunLaunch &l = run.launches[li];
        size_t k = 0;
        while (k < lane_end.size() && lane_end[k] > l.begin_ns)
          ++k;
        if (k == lane_end.size()) {
          lane_end.push_back(l.end_ns);
          lane_track.push_back(out.track(stream_name(stream, k), dt.root, rank++));
        }
        lane_end[k] = std::max(lane_end[k], l.end_ns);
        dt.stream_lane_track[li] = lane_track[k];
      }
    }
  }
  return devices;
}

std::string dims(const uint32_t d[3]) {
  return "[" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]) + "]";
}

// The launch's slice on its stream and its enqueue instant on the host track; returns the
// slice's end, which the caller writes after the launch's rows (events in time order keep the
// timestamps on the incremental clock, pftrace_writer.h).
int64_t write_launch_slice(TraceWriter &out, const RunTrace &run, const RunLaunch &l,
                           const DeviceTracks &dt, uint64_t stream_track) {
  const std::string &kernel = run_labels::kernel_name(run, l);
  if (l.enqueue_ns && dt.host) {
    out.args().uinteger("sequence", l.sequence).uinteger("launch_index", l.launch_index);
    out.instant(dt.host, whole(*l.enqueue_ns), "enqueue " + kernel);
  }
  EventArgs &args = out.args();
  args.text("grid", dims(l.grid))
      .text("block", dims(l.block))
      .uinteger("launch_index", l.launch_index)
      .uinteger("sequence", l.sequence)
      .boolean("in_graph", l.in_graph);
  if (l.enqueue_ns)
    args.real("enqueue_to_start_us", (l.begin_ns - *l.enqueue_ns) / 1000.0);
  const Completeness gaps = completeness_of(l);
  completeness_args(args, gaps);
  if (!l.trace.ok())
    args.text("first_problem", l.trace.problems.front());
  const int64_t begin = whole(l.begin_ns), end = std::max(begin, whole(l.end_ns));
  if (gaps.complete())
    out.begin(stream_track, begin, kernel);
  else
    out.begin(stream_track, begin, kernel + " [INCOMPLETE]", /*inline_name=*/true);
  return end;
}

} // namespace

std::optional<std::string> write_run_perfetto_trace(const RunTrace &run, const ByteSink &sink,
                                                    const RunPerfettoOptions &options) {
  TraceWriter out(sink, options.encoding);
  std::vector<DeviceTracks> devices = device_tracks(out, run);
  uint64_t next_flow_id = 1, incomplete_slices = 0;
  int64_t run_end = 0;
  for (uint32_t li = 0; li < run.launches.size() && !out.failed(); ++li) {
    const RunLaunch &listed = run.launches[li];
    if (listed.map >= run.maps.size() || listed.device >= run.devices.size())
      continue; // decode_run never makes one; an in-memory run might
    std::optional<RunLaunch> loaded;
    if (!listed.detail && options.load_detail) {
      loaded = options.load_detail(listed); // freed before the next launch
      if (!loaded && listed.trace.ok())     // readable when first read: not any more
        return "cannot read the records of launch " + std::to_string(listed.sequence) +
               " again from its file";
    }
    const RunLaunch &l = loaded ? *loaded : listed;
    DeviceTracks &dt = devices[l.device];
    const uint64_t stream = dt.stream_lane_track.at(li);
    const int64_t end = write_launch_slice(out, run, l, dt, stream);
    run_end = std::max(run_end, whole(l.end_ns));
    if (l.detail) {
      dt.sm_slots->write(out, run.maps[l.map], l.trace, l.offset_ns, next_flow_id, l.sequence);
      next_flow_id += l.trace.flows.size();
      incomplete_slices += completeness_of(l.trace).incomplete_slices;
    }
    out.end(stream, end);
  }

  // What the run lost, on a track of its own, once every launch has been counted.
  const RunCompleteness gaps = run_completeness(run);
  const uint64_t track = out.track("run", 0);
  EventArgs &args = out.args();
  args.boolean("complete", gaps.complete() && incomplete_slices == 0)
      .text("completeness", run_completeness_text(gaps))
      .uinteger("launches", gaps.launches)
      .uinteger("launches_decoded", gaps.launches_decoded)
      .uinteger("incomplete_slices", incomplete_slices)
      .uinteger("origin_ns", run.origin_ns)
      .text("clock", run.host_aligned ? "host realtime" : "globaltimer");
  if (!run.problems.empty())
    args.uinteger("problems", run.problems.size()).text("first_problem", run.problems.front());
  const bool complete = gaps.complete() && incomplete_slices == 0;
  out.begin(track, 0, complete ? "run: complete" : "run: INCOMPLETE", true);
  out.end(track, run_end);
  for (const UndecodedLaunch &u : gaps.undecoded) {
    out.args().text("why", u.why);
    out.instant(track, 0, "not decoded: " + undecoded_name(u), true);
  }
  if (!out.finish())
    return std::string("the output could not be written");
  return std::nullopt;
}

} // namespace cutrace
