// Chrome Trace Event JSON of a whole run (docs/viewer.md, "Runs in Perfetto and in the summary"):
// a Perfetto process per (process, GPU) with a track per stream (one complete event per launch), a
// "host" track of enqueue instants, and tracks per SM holding every launch's rows. Events are
// written by the same code as the launch export (perfetto_events.h), shifted by each launch's
// offset on the run axis.
#include "completeness_json.h"
#include "perfetto_events.h"
#include "run_labels.h"

#include <cutrace/export.h>
#include <cutrace/run_trace.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace cutrace {

namespace {

using namespace perfetto;

std::string stream_name(uint64_t stream, size_t lane) {
  const std::string name = "stream " + run_labels::stream_label(stream);
  return lane ? name + " (" + std::to_string(lane + 1) + ")" : name;
}

std::string dims(const uint32_t d[3]) {
  return "[" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]) + "]";
}

std::string launch_event(const RunTrace &run, const RunLaunch &l, const std::string &where) {
  std::string args = "\"grid\":" + dims(l.grid) + ",\"block\":" + dims(l.block) +
                     ",\"launch_index\":" + std::to_string(l.launch_index) +
                     ",\"sequence\":" + std::to_string(l.sequence) +
                     ",\"in_graph\":" + (l.in_graph ? "true" : "false");
  if (l.enqueue_ns)
    args += ",\"enqueue_to_start_us\":" + us(l.begin_ns - *l.enqueue_ns);
  args += ",\"completeness\":" + completeness_json(completeness_of(l)).dump();
  if (!l.trace.ok())
    args += ",\"first_problem\":" + json_string(l.trace.problems.front());
  return "{\"ph\":\"X\",\"name\":" + json_string(run_labels::kernel_name(run, l)) +
         ",\"cat\":\"launch\"," + where + ",\"ts\":" + us(std::round(l.begin_ns)) +
         ",\"dur\":" + us(std::round(l.end_ns) - std::round(l.begin_ns)) + ",\"args\":{" + args +
         "}}";
}

std::string enqueue_event(const RunTrace &run, const RunLaunch &l, const std::string &where) {
  return "{\"ph\":\"i\",\"s\":\"t\",\"name\":" +
         json_string("enqueue " + run_labels::kernel_name(run, l)) + ",\"cat\":\"enqueue\"," +
         where + ",\"ts\":" + us(*l.enqueue_ns) +
         ",\"args\":{\"sequence\":" + std::to_string(l.sequence) +
         ",\"launch_index\":" + std::to_string(l.launch_index) + "}}";
}

// Launches of one stream on as few tracks as keep them from overlapping (stream order makes one
// track the rule; replays of a graph captured from several streams can overlap).
std::vector<std::vector<uint32_t>> stream_lanes(const RunTrace &run,
                                                const std::vector<uint32_t> &launches) {
  std::vector<std::vector<uint32_t>> lanes;
  std::vector<double> lane_end;
  for (uint32_t li : launches) { // sorted by begin
    const RunLaunch &l = run.launches[li];
    size_t k = 0;
    while (k < lanes.size() && lane_end[k] > l.begin_ns)
      ++k;
    if (k == lanes.size()) {
      lanes.emplace_back();
      lane_end.push_back(l.end_ns);
    }
    lanes[k].push_back(li);
    lane_end[k] = std::max(lane_end[k], l.end_ns);
  }
  return lanes;
}

// The tracks of one row of one launch, with the span they cover on the run axis.
struct RowEvents {
  uint32_t smid = 0;
  double begin = 0, end = 0;
  std::vector<std::vector<Event> *> tracks; // by (lane, level)
};

struct SmTrack {
  uint32_t smid, slot, sub;
  bool operator<(const SmTrack &o) const {
    return std::tie(smid, slot, sub) < std::tie(o.smid, o.slot, o.sub);
  }
};

// Rows are placed on an SM's slots like CTAs on the SM: a slot holds one row at a time, so the
// rows of every launch that ran there share few tracks and never overlap on one.
std::map<SmTrack, std::vector<Event>> sm_tracks(std::vector<RowEvents> rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const RowEvents &a, const RowEvents &b) {
    return a.smid != b.smid ? a.smid < b.smid : a.begin < b.begin;
  });
  std::map<SmTrack, std::vector<Event>> tracks;
  std::vector<double> slot_end;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i == 0 || rows[i].smid != rows[i - 1].smid)
      slot_end.clear();
    uint32_t slot = 0;
    while (slot < slot_end.size() && slot_end[slot] > rows[i].begin)
      ++slot;
    if (slot == slot_end.size())
      slot_end.push_back(0);
    slot_end[slot] = rows[i].end;
    for (uint32_t sub = 0; sub < rows[i].tracks.size(); ++sub) {
      std::vector<Event> &to = tracks[{rows[i].smid, slot, sub}];
      std::vector<Event> &from = *rows[i].tracks[sub];
      to.insert(to.end(), from.begin(), from.end());
      std::vector<Event>().swap(from); // one copy of each event at a time
    }
  }
  return tracks;
}

double event_end(const Event &e) { return e.ph == Ph::slice ? e.end : e.ts; }

// Every row of the device's launches that has events, with the span it covers on the run axis.
std::vector<RowEvents> row_events(const RunTrace &run, const std::vector<uint32_t> &launches,
                                  std::vector<LaunchSource> &sources,
                                  std::vector<std::map<RowTrack, std::vector<Event>>> &by_launch) {
  std::vector<RowEvents> rows;
  for (uint32_t li : launches) {
    const RunLaunch &l = run.launches[li];
    add_run_args(sources[li], l.sequence);
    add_handoff_args(sources[li]);
    by_launch[li] = row_tracks(sources[li], l.offset_ns);
    int64_t current = -1; // tracks come ordered by row
    for (auto &[key, events] : by_launch[li]) {
      if (events.empty())
        continue;
      if (key.row != current) {
        const Row &row = l.trace.rows[key.row];
        RowEvents r;
        r.smid = row.smid;
        r.begin = r.end = events.front().ts;
        if (row.started) {
          r.begin = l.offset_ns + row_start_ns(l.trace, row);
          r.end = l.offset_ns + row_end_ns(l.trace, row);
        }
        rows.push_back(std::move(r));
        current = key.row;
      }
      RowEvents &r = rows.back();
      for (const Event &e : events) {
        r.begin = std::min(r.begin, e.ts);
        r.end = std::max(r.end, event_end(e));
      }
      r.tracks.push_back(&events);
    }
  }
  return rows;
}

} // namespace

std::string export_run_perfetto(const RunTrace &run) {
  nlohmann::json other = {{"run", true},
                          {"origin_ns", run.origin_ns},
                          {"clock", run.host_aligned ? "host realtime" : "globaltimer"},
                          {"launches", run.launches.size()},
                          {"problems", run.problems},
                          {"completeness", run_completeness_json(run_completeness(run))}};
  TraceEventWriter out(other.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));

  std::vector<LaunchSource> sources(run.launches.size());
  uint64_t next_flow_id = 1;
  std::vector<std::vector<uint32_t>> device_launches(run.devices.size());
  for (uint32_t li = 0; li < run.launches.size(); ++li) {
    const RunLaunch &l = run.launches[li];
    if (l.map >= run.maps.size() || l.device >= run.devices.size())
      continue; // decode_run never makes one; an in-memory run might
    sources[li].map = &run.maps[l.map];
    sources[li].trace = &l.trace;
    sources[li].first_flow_id = next_flow_id;
    next_flow_id += l.trace.flows.size();
    device_launches[l.device].push_back(li);
  }
  std::vector<std::map<RowTrack, std::vector<Event>>> by_launch(run.launches.size());

  for (uint32_t d = 0; d < run.devices.size(); ++d) {
    const uint64_t pid = uint64_t(d) + 1;
    out.process(pid, run_labels::device_label(run, run.devices[d]));
    uint64_t tid = 0;
    auto where = [&] {
      return "\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid);
    };

    const std::vector<uint32_t> &launches = device_launches[d];
    if (std::any_of(launches.begin(), launches.end(),
                    [&](uint32_t li) { return run.launches[li].enqueue_ns.has_value(); })) {
      out.thread(pid, ++tid, "host");
      std::vector<uint32_t> enqueued(launches);
      std::stable_sort(enqueued.begin(), enqueued.end(), [&](uint32_t a, uint32_t b) {
        return run.launches[a].enqueue_ns.value_or(0) < run.launches[b].enqueue_ns.value_or(0);
      });
      for (uint32_t li : enqueued)
        if (run.launches[li].enqueue_ns)
          out.event(enqueue_event(run, run.launches[li], where()));
    }

    std::map<uint64_t, std::vector<uint32_t>> streams;
    for (uint32_t li : launches)
      streams[run.launches[li].stream].push_back(li);
    for (const auto &[stream, of_stream] : streams) {
      const std::vector<std::vector<uint32_t>> lanes = stream_lanes(run, of_stream);
      for (size_t k = 0; k < lanes.size(); ++k) {
        out.thread(pid, ++tid, stream_name(stream, k));
        for (uint32_t li : lanes[k])
          out.event(launch_event(run, run.launches[li], where()));
      }
    }

    std::map<SmTrack, std::vector<Event>> sms =
        sm_tracks(row_events(run, launches, sources, by_launch));
    for (auto &[key, events] : sms) {
      std::string name =
          "SM " + std::to_string(key.smid) + " \u00b7 slot " + std::to_string(key.slot);
      if (key.sub)
        name += " \u00b7 " + std::to_string(key.sub + 1);
      out.thread(pid, ++tid, name);
      out.events(pid, tid, events);
    }
    for (uint32_t li : launches) { // the device's events are written: free them before the next
      by_launch[li].clear();
      sources[li].row_args = {};
      sources[li].handoff_args = {};
    }
  }
  return out.finish();
}

} // namespace cutrace
