// Chrome Trace Event writing shared by the launch and run exports (perfetto_events.h).
#include "perfetto_events.h"

#include <cutrace/analysis.h>
#include <cutrace/export.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

namespace cutrace::perfetto {

namespace {

// Slices of one lane go onto as few threads as keep every thread properly nested (Chrome's X
// events must nest); partial overlaps, which BEGIN/END matching allows, get an extra thread.
std::vector<uint32_t> pack_nested(const Row &row, uint32_t lane) {
  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < row.slices.size(); ++i)
    if (row.slices[i].lane == lane)
      order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const Slice &x = row.slices[a], &y = row.slices[b];
    return x.begin_ns != y.begin_ns ? x.begin_ns < y.begin_ns : x.end_ns > y.end_ns;
  });
  std::vector<uint32_t> level(row.slices.size(), 0);
  std::vector<std::vector<double>> open_ends; // per thread: ends of the enclosing slices
  for (uint32_t i : order) {
    const Slice &s = row.slices[i];
    uint32_t k = 0;
    for (; k < open_ends.size(); ++k) {
      std::vector<double> &stack = open_ends[k];
      while (!stack.empty() && stack.back() <= s.begin_ns)
        stack.pop_back();
      if (stack.empty() || stack.back() >= s.end_ns)
        break;
    }
    if (k == open_ends.size())
      open_ends.emplace_back();
    open_ends[k].push_back(s.end_ns);
    level[i] = k;
  }
  return level;
}

std::string lane_name(const DecodeMap &map, uint32_t lane) {
  return lane < map.lanes.size() ? map.lanes[lane] : "?";
}

std::string group_name(const DecodeMap &map, uint32_t group) {
  return group < map.groups.size() ? map.groups[group].name : "#" + std::to_string(group);
}

std::string loc(const DecodeMap &map, uint32_t site) {
  const Site *s = map.site(site);
  return s ? s->loc : std::string();
}

// What a run export adds to a slice's or instant's args.
void append_run_args(std::string &out, const LaunchSource &source, uint32_t row, uint32_t lane) {
  if (row < source.row_args.size())
    out += source.row_args[row];
  if (lane < source.lane_args.size())
    out += source.lane_args[lane];
}

double whole_ns(double ns) { return double(std::llround(ns)); }

// The first time from `from` on inside [begin, end) that no other slice of `track` nested in
// [begin, end) covers: where a slice of the track is the innermost open one. nullopt: none.
std::optional<double> free_point(const std::vector<Event> &track, double begin, double end,
                                 double from) {
  double t = std::max(from, begin);
  for (bool moved = true; moved && t < end;) {
    moved = false;
    for (const Event &e : track)
      if (e.ph == Ph::slice && e.ts >= begin && e.end <= end && !(e.ts == begin && e.end == end) &&
          e.ts <= t && t < e.end) {
        t = e.end;
        moved = true;
      }
  }
  return t < end ? std::optional<double>(t) : std::nullopt;
}

} // namespace

void add_handoff_args(LaunchSource &source) {
  const Trace &t = *source.trace;
  source.handoff_args.clear();
  for (const Flow &f : t.flows) {
    const HandoffTiming h = handoff_timing(t, f);
    char buf[160];
    std::snprintf(buf, sizeof buf, ",\"wait_ns\":%.3f,\"gap_ns\":%.3f,\"wait_cycles\":%.0f",
                  h.wait_ns, h.gap_ns, h.wait_cycles);
    source.handoff_args.emplace(
        std::make_pair(f.dst.row, f.dst.slice),
        ",\"handoff_src\":" + json_string(t.rows[f.src.row].slices[f.src.slice].name) + buf);
  }
}

std::string json_string(const std::string &s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string us(double ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f", ns / 1000.0);
  return buf;
}

std::string cta_label(const Trace &trace, uint32_t cta) {
  const std::array<uint32_t, 3> xyz = cta_coords(trace.header, cta);
  return "CTA (" + std::to_string(xyz[0]) + "," + std::to_string(xyz[1]) + "," +
         std::to_string(xyz[2]) + ")";
}

std::string track_name(const DecodeMap &map, const Row &row, uint32_t lane, uint32_t level) {
  std::string name =
      (row.label.empty() ? group_name(map, row.group) : row.label) + " / " + lane_name(map, lane);
  if (level)
    name += " (" + std::to_string(level + 1) + ")";
  return name;
}

void add_run_args(LaunchSource &source, uint64_t sequence) {
  const std::string launch = ",\"kernel\":" + json_string(source.trace->kernel) +
                             ",\"launch\":" + std::to_string(sequence);
  source.row_args.clear();
  for (const Row &row : source.trace->rows)
    source.row_args.push_back(
        launch + ",\"cta\":" + json_string(cta_label(*source.trace, row.cta)) +
        ",\"group\":" + json_string(group_name(*source.map, row.group)) +
        (row.sliced() ? ",\"row\":" + json_string(row.label) : std::string()));
  source.lane_args.clear();
  for (uint32_t lane = 0; lane <= source.map->lanes.size(); ++lane)
    source.lane_args.push_back(",\"lane\":" + json_string(lane_name(*source.map, lane)));
}

std::map<RowTrack, std::vector<Event>> row_tracks(const LaunchSource &source, double offset_ns,
                                                  bool flow_points) {
  const Trace &t = *source.trace;
  const size_t lanes = source.map->lanes.size();
  std::map<RowTrack, std::vector<Event>> tracks;
  std::vector<std::vector<uint32_t>> slice_level(t.rows.size());
  for (uint32_t r = 0; r < t.rows.size(); ++r) {
    const Row &row = t.rows[r];
    if (!row.started && row.slices.empty() && row.instants.empty())
      continue;
    slice_level[r].assign(row.slices.size(), 0);
    std::vector<bool> lanes_seen(lanes + 1, false);
    for (const Slice &s : row.slices)
      lanes_seen[std::min<size_t>(s.lane, lanes)] = true;
    for (uint32_t lane = 0; lane < lanes_seen.size(); ++lane) {
      if (!lanes_seen[lane])
        continue;
      const std::vector<uint32_t> level = pack_nested(row, lane);
      for (uint32_t i = 0; i < row.slices.size(); ++i)
        if (row.slices[i].lane == lane) {
          slice_level[r][i] = level[i];
          const Slice &s = row.slices[i];
          const double b = whole_ns(offset_ns + s.begin_ns), e = whole_ns(offset_ns + s.end_ns);
          tracks[{r, lane, level[i]}].push_back({b, -(e - b), Ph::slice, r, i, &source, e});
        }
    }
    for (uint32_t i = 0; i < row.instants.size(); ++i)
      tracks[{r, row.instants[i].lane, 0}].push_back(
          {whole_ns(offset_ns + row.instants[i].ns), 1, Ph::instant, r, i, &source});
    if (row.slices.empty() && row.instants.empty())
      tracks[{r, 0, 0}]; // an empty group still gets its named thread
  }
  if (!flow_points)
    return tracks;
  // Flow ends are placed once every track holds its slices (free_point reads them).
  std::vector<Event> flow_events;
  std::vector<RowTrack> flow_tracks;
  for (uint32_t f = 0; f < t.flows.size(); ++f) {
    const SliceRef src = t.flows[f].src, dst = t.flows[f].dst;
    const Slice &a = t.rows[src.row].slices[src.slice], &b = t.rows[dst.row].slices[dst.slice];
    const RowTrack from{src.row, a.lane, slice_level[src.row][src.slice]};
    const RowTrack to{dst.row, b.lane, slice_level[dst.row][dst.slice]};
    const double a0 = whole_ns(offset_ns + a.begin_ns), a1 = whole_ns(offset_ns + a.end_ns);
    const double b0 = whole_ns(offset_ns + b.begin_ns), b1 = whole_ns(offset_ns + b.end_ns);
    const double start = free_point(tracks[from], a0, a1, a0).value_or(a0);
    // The landing point, else the first free point after the start, inside dst.
    const double at = std::min(whole_ns(offset_ns + t.flows[f].at_ns), b1 - 1);
    const double finish = free_point(tracks[to], b0, b1, std::max(at, start))
                              .value_or(free_point(tracks[to], b0, b1, start).value_or(at));
    flow_events.push_back({start, 2, Ph::flow_start, src.row, f, &source});
    flow_tracks.push_back(from);
    flow_events.push_back({finish, 2, Ph::flow_end, dst.row, f, &source}); // bp "e"
    flow_tracks.push_back(to);
  }
  for (size_t i = 0; i < flow_events.size(); ++i)
    tracks[flow_tracks[i]].push_back(flow_events[i]);
  return tracks;
}

TraceEventWriter::TraceEventWriter(const std::string &other_data)
    : out_("{\"displayTimeUnit\":\"ns\",\"otherData\":" + other_data + ",\"traceEvents\":[\n") {}

void TraceEventWriter::event(const std::string &json) {
  out_ += first_ ? "" : ",\n";
  out_ += json;
  first_ = false;
}

void TraceEventWriter::process(uint64_t pid, const std::string &name) {
  const std::string id = std::to_string(pid);
  event("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + id +
        ",\"tid\":0,\"args\":{\"name\":" + json_string(name) + "}}");
  event("{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" + id +
        ",\"tid\":0,\"args\":{\"sort_index\":" + id + "}}");
}

void TraceEventWriter::thread(uint64_t pid, uint64_t tid, const std::string &name) {
  const std::string where = "\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid);
  event("{\"ph\":\"M\",\"name\":\"thread_name\"," + where +
        ",\"args\":{\"name\":" + json_string(name) + "}}");
  event("{\"ph\":\"M\",\"name\":\"thread_sort_index\"," + where +
        ",\"args\":{\"sort_index\":" + std::to_string(tid) + "}}");
}

void TraceEventWriter::events(uint64_t pid, uint64_t tid, std::vector<Event> &events) {
  std::sort(events.begin(), events.end(), [](const Event &a, const Event &b) {
    return a.ts != b.ts ? a.ts < b.ts : a.order < b.order;
  });
  const std::string where = "\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid);
  for (const Event &e : events)
    write(where, e);
}

void TraceEventWriter::write(const std::string &where, const Event &e) {
  const LaunchSource &src = *e.source;
  const Trace &t = *src.trace;
  std::string &o = line_;
  o.clear();
  if (e.ph == Ph::slice) {
    const Slice &s = t.rows[e.row].slices[e.index];
    // A slice whose END was not recorded: its drawn length is not how long it ran.
    o += "{\"ph\":\"X\",\"name\":" + json_string(s.incomplete ? s.name + kIncompleteSuffix : s.name) +
         ",\"cat\":\"slice\",";
    o += where;
    o += ",\"ts\":" + us(e.ts) + ",\"dur\":" + us(e.end - e.ts);
    o += ",\"args\":{\"payload\":" + std::to_string(s.payload);
    o += ",\"begin_cycles\":" + std::to_string(s.begin_cycles);
    o += ",\"dur_cycles\":" + std::to_string(s.end_cycles - s.begin_cycles);
    o += ",\"loc\":" + json_string(loc(*src.map, s.site));
    if (s.incomplete)
      o += ",\"incomplete\":true";
    auto handoff = src.handoff_args.find({e.row, e.index});
    if (handoff != src.handoff_args.end())
      o += handoff->second;
    append_run_args(o, src, e.row, s.lane);
    o += "}}";
  } else if (e.ph == Ph::instant) {
    const Instant &i = t.rows[e.row].instants[e.index];
    o += "{\"ph\":\"i\",\"s\":\"t\",\"name\":" + json_string(i.name) + ",\"cat\":\"instant\",";
    o += where;
    o += ",\"ts\":" + us(e.ts) + ",\"args\":{\"payload\":" + std::to_string(i.payload);
    o += ",\"cycles\":" + std::to_string(i.cycles) +
         ",\"loc\":" + json_string(loc(*src.map, i.site));
    append_run_args(o, src, e.row, i.lane);
    o += "}}";
  } else {
    const Flow &f = t.flows[e.index];
    o += e.ph == Ph::flow_start ? "{\"ph\":\"s\",\"name\":" : "{\"ph\":\"f\",\"name\":";
    o += json_string(t.rows[f.src.row].slices[f.src.slice].name + " -> " +
                     t.rows[f.dst.row].slices[f.dst.slice].name);
    o += ",\"cat\":\"dag\",\"id\":" + std::to_string(src.first_flow_id + e.index) + ",";
    o += where;
    o += ",\"ts\":" + us(e.ts);
    if (e.ph == Ph::flow_end)
      o += ",\"bp\":\"e\"";
    o += "}";
  }
  event(o);
}

std::string TraceEventWriter::finish() {
  out_ += "\n]}\n";
  return std::move(out_);
}

} // namespace cutrace::perfetto
