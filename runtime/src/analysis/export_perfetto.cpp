// Chrome Trace Event JSON (opens in ui.perfetto.dev and chrome://tracing): a process per CTA,
// a thread per (group, lane), complete events for slices, instants, flow events for TRACE_DAG.
// Written as text, not as a JSON tree: a million events must not cost gigabytes.
#include <cutrace/export.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

namespace cutrace {

namespace {

std::string json_string(const std::string &s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string us(double ns) { // microseconds with nanosecond resolution
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f", ns / 1000.0);
  return buf;
}

// Slices of one lane go onto as few threads as keep every thread properly nested (Chrome's X
// events must nest); partial overlaps, which BEGIN/END matching allows, get an extra thread.
std::vector<uint32_t> pack_nested(const Row &row, uint32_t lane, uint32_t &threads) {
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
  threads = std::max<uint32_t>(1, uint32_t(open_ends.size()));
  return level;
}

enum class Ph { slice, instant, flow_start, flow_end };

struct Event {
  double ts;    // ns since Trace::origin_ns
  double order; // ties: longer slices first so parents precede children
  Ph ph;
  uint32_t index; // slice, instant or flow index
};

struct ThreadKey {
  uint32_t row, lane, level;
  bool operator<(const ThreadKey &o) const {
    return std::tie(row, lane, level) < std::tie(o.row, o.lane, o.level);
  }
};

} // namespace

std::string export_perfetto(const DecodeMap &map, const Trace &t) {
  auto lane_name = [&](uint32_t l) { return l < map.lanes.size() ? map.lanes[l] : "?"; };
  auto group_name = [&](uint32_t g) {
    return g < map.groups.size() ? map.groups[g].name : "#" + std::to_string(g);
  };
  auto loc = [&](uint32_t site) {
    const Site *s = map.site(site);
    return s ? s->loc : std::string();
  };

  // Thread of every slice and instant; threads numbered per CTA in (group, lane, level) order.
  std::map<uint32_t, std::map<ThreadKey, std::vector<Event>>> ctas; // cta -> thread -> events
  std::vector<std::vector<uint32_t>> slice_level(t.rows.size());
  for (uint32_t r = 0; r < t.rows.size(); ++r) {
    const Row &row = t.rows[r];
    if (!row.started && row.slices.empty() && row.instants.empty())
      continue;
    std::map<ThreadKey, std::vector<Event>> &threads = ctas[row.cta];
    slice_level[r].assign(row.slices.size(), 0);
    std::vector<bool> lanes_seen(map.lanes.size() + 1, false);
    for (const Slice &s : row.slices)
      lanes_seen[std::min<size_t>(s.lane, map.lanes.size())] = true;
    for (uint32_t lane = 0; lane < lanes_seen.size(); ++lane) {
      if (!lanes_seen[lane])
        continue;
      uint32_t n = 0;
      const std::vector<uint32_t> level = pack_nested(row, lane, n);
      for (uint32_t i = 0; i < row.slices.size(); ++i)
        if (row.slices[i].lane == lane) {
          slice_level[r][i] = level[i];
          const Slice &s = row.slices[i];
          threads[{r, lane, level[i]}].push_back(
              {s.begin_ns, -(s.end_ns - s.begin_ns), Ph::slice, i});
        }
    }
    for (uint32_t i = 0; i < row.instants.size(); ++i)
      threads[{r, row.instants[i].lane, 0}].push_back({row.instants[i].ns, 1, Ph::instant, i});
    if (row.slices.empty() && row.instants.empty())
      threads[{r, 0, 0}]; // an empty group still gets its named thread
  }
  for (uint32_t f = 0; f < t.flows.size(); ++f) {
    const SliceRef src = t.flows[f].src, dst = t.flows[f].dst;
    const Slice &a = t.rows[src.row].slices[src.slice], &b = t.rows[dst.row].slices[dst.slice];
    const uint32_t cta = t.rows[src.row].cta;
    ctas[cta][{src.row, a.lane, slice_level[src.row][src.slice]}].push_back(
        {a.begin_ns, 2, Ph::flow_start, f}); // binds to src, the slice enclosing its start
    ctas[cta][{dst.row, b.lane, slice_level[dst.row][dst.slice]}].push_back(
        {t.flows[f].at_ns, 2, Ph::flow_end, f}); // bp "e": binds to dst, which encloses at_ns
  }

  std::string out =
      "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"kernel\":" + json_string(t.kernel) +
      ",\"origin_globaltimer_ns\":" + std::to_string(t.origin_ns) + "},\"traceEvents\":[\n";
  bool first = true;
  auto emit = [&](const std::string &e) {
    out += first ? "" : ",\n";
    out += e;
    first = false;
  };
  for (auto &[cta, threads] : ctas) {
    const std::string pid = std::to_string(uint64_t(cta) + 1);
    const std::array<uint32_t, 3> xyz = cta_coords(t.header, cta);
    uint32_t smid = 0;
    for (const Row &row : t.rows)
      if (row.cta == cta && row.started) {
        smid = row.smid;
        break;
      }
    const std::string pname = "CTA (" + std::to_string(xyz[0]) + "," + std::to_string(xyz[1]) +
                              "," + std::to_string(xyz[2]) + ") on SM " + std::to_string(smid);
    emit("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + pid +
         ",\"tid\":0,\"args\":{\"name\":" + json_string(pname) + "}}");
    emit("{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" + pid +
         ",\"tid\":0,\"args\":{\"sort_index\":" + pid + "}}");
    uint32_t tid_counter = 0;
    for (auto &[key, events] : threads) {
      const Row &row = t.rows[key.row];
      const std::string tid = std::to_string(++tid_counter);
      std::string tname = group_name(row.group) + " / " + lane_name(key.lane);
      if (key.level)
        tname += " (" + std::to_string(key.level + 1) + ")";
      const std::string where = "\"pid\":" + pid + ",\"tid\":" + tid;
      emit("{\"ph\":\"M\",\"name\":\"thread_name\"," + where +
           ",\"args\":{\"name\":" + json_string(tname) + "}}");
      emit("{\"ph\":\"M\",\"name\":\"thread_sort_index\"," + where +
           ",\"args\":{\"sort_index\":" + tid + "}}");
      std::sort(events.begin(), events.end(), [](const Event &a, const Event &b) {
        return a.ts != b.ts ? a.ts < b.ts : a.order < b.order;
      });
      for (const Event &e : events) {
        if (e.ph == Ph::slice) {
          const Slice &s = row.slices[e.index];
          emit("{\"ph\":\"X\",\"name\":" + json_string(s.name) + ",\"cat\":\"slice\"," + where +
               ",\"ts\":" + us(e.ts) + ",\"dur\":" + us(s.end_ns - s.begin_ns) +
               ",\"args\":{\"payload\":" + std::to_string(s.payload) +
               ",\"begin_cycles\":" + std::to_string(s.begin_cycles) +
               ",\"dur_cycles\":" + std::to_string(s.end_cycles - s.begin_cycles) + ",\"loc\":" +
               json_string(loc(s.site)) + (s.incomplete ? ",\"incomplete\":true" : "") + "}}");
        } else if (e.ph == Ph::instant) {
          const Instant &i = row.instants[e.index];
          emit("{\"ph\":\"i\",\"s\":\"t\",\"name\":" + json_string(i.name) +
               ",\"cat\":\"instant\"," + where + ",\"ts\":" + us(e.ts) + ",\"args\":{\"payload\":" +
               std::to_string(i.payload) + ",\"cycles\":" + std::to_string(i.cycles) +
               ",\"loc\":" + json_string(loc(i.site)) + "}}");
        } else {
          const Flow &f = t.flows[e.index];
          const std::string name = t.rows[f.src.row].slices[f.src.slice].name + " -> " +
                                   t.rows[f.dst.row].slices[f.dst.slice].name;
          emit(std::string("{\"ph\":\"") + (e.ph == Ph::flow_start ? "s" : "f") + "\",\"name\":" +
               json_string(name) + ",\"cat\":\"dag\",\"id\":" + std::to_string(e.index + 1) + "," +
               where + ",\"ts\":" + us(e.ts) + (e.ph == Ph::flow_end ? ",\"bp\":\"e\"" : "") + "}");
        }
      }
    }
  }
  out += "\n]}\n";
  return out;
}

} // namespace cutrace
