// A run's launches on one time axis (docs/FORMAT.md, "Runs"): each launch is decoded as a single
// launch is, then placed by its globaltimer origin, shifted to host time when every device's
// clock offset was measured.
#include <cutrace/run_trace.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

namespace cutrace {

namespace {

using json = nlohmann::json;

// The key's value, or `fallback` when the key is missing or holds a value of another kind (a
// corrupt or hand-edited run file must not end the decoder: nlohmann throws on a wrong kind).
template <class T> T value_or(const json &j, const char *key, T fallback) {
  const auto it = j.find(key);
  if (it == j.end())
    return fallback;
  bool fits;
  if constexpr (std::is_same_v<T, std::string>)
    fits = it->is_string();
  else if constexpr (std::is_same_v<T, bool>)
    fits = it->is_boolean();
  else if constexpr (std::is_integral_v<T>)
    fits = it->is_number_integer(); // a float such as 1e54 would convert out of range (UB)
  else
    fits = it->is_number();
  return fits ? it->get<T>() : fallback;
}

RunProcess process_from(const json &run, const json &end, const std::string &file) {
  RunProcess p;
  p.file = file;
  p.program = value_or<std::string>(run, "program", "");
  p.pid = value_or<uint64_t>(run, "pid", 0);
  p.host = value_or<std::string>(run, "host", "");
  p.rank = value_or<int>(run, "rank", -1);
  p.local_rank = value_or<int>(run, "local_rank", -1);
  if (const auto it = run.find("host_clock_error_ns"); it != run.end() && it->is_number_unsigned())
    p.host_clock_error_ns = it->get<uint64_t>();
  p.launches = value_or<std::string>(run, "launches", "");
  p.kernels = value_or<std::string>(run, "kernels", "");
  p.complete = !end.is_null();
  if (end.is_object()) {
    for (const json &k : end.value("kernels", json::array()))
      p.kernel_launches[value_or<std::string>(k, "kernel", "")] = {
          value_or<uint64_t>(k, "launches", 0), value_or<uint64_t>(k, "recorded", 0)};
    p.pool_waits = value_or<uint64_t>(end, "pool_waits", 0);
    p.pool_skipped = value_or<uint64_t>(end, "pool_skipped", 0);
    p.disk_skipped = value_or<uint64_t>(end, "disk_skipped", 0);
  }
  return p;
}

// Two hex digits per byte; nullopt on anything else.
std::optional<std::vector<uint8_t>> from_hex(const std::string &text) {
  auto digit = [](char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
  };
  if (text.size() % 2 != 0)
    return std::nullopt;
  std::vector<uint8_t> out(text.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    const int hi = digit(text[2 * i]), lo = digit(text[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return std::nullopt;
    out[i] = uint8_t(hi << 4 | lo);
  }
  return out;
}

RunDevice device_from(const json &d) {
  RunDevice dev;
  dev.index = value_or<uint32_t>(d, "index", 0);
  dev.name = value_or<std::string>(d, "name", "");
  dev.clock_khz = value_or<uint32_t>(d, "clock_khz", 0);
  dev.sms = value_or<uint32_t>(d, "sms", 0);
  dev.aligned = value_or<bool>(d, "aligned", false);
  dev.host_minus_gpu_ns = value_or<int64_t>(d, "host_minus_gpu_ns", 0);
  dev.alignment_error_ns = value_or<uint64_t>(d, "alignment_error_ns", 0);
  const std::string probe = value_or<std::string>(d, "marker_probe", "");
  if (probe.empty()) {
    dev.marker_cost_problem =
        value_or<std::string>(d, "marker_probe_problem", "the run did not measure it");
  } else if (std::optional<std::vector<uint8_t>> bytes = from_hex(probe)) {
    Expected<MarkerCost> cost = marker_cost_from_probe(bytes->data(), bytes->size());
    if (cost)
      dev.marker_cost = *cost;
    else
      dev.marker_cost_problem = cost.error;
  } else {
    dev.marker_cost_problem = "the marker probe's bytes are not hex";
  }
  return dev;
}

// The options one launch is decoded with: the marker cost measured on its GPU, for clock64.
DecodeOptions launch_options(const DecodeOptions &options, const RunDevice &device,
                             const DecodeMap &map) {
  DecodeOptions o = options;
  if (!o.marker_cost && o.run_marker_cost && map.clock == Clock::clock64)
    o.marker_cost = device.marker_cost;
  return o;
}

// The offsets measured again at the run's end: the axis keeps the start offsets, and each
// device's error bound grows by how far its offset moved (drift between host and GPU clocks).
// A device whose start-up measurement failed takes the end's offset instead, so its launches
// still have a place on the host axis.
void apply_end_alignments(std::vector<RunDevice> &devices, const json &at_end) {
  for (const json &e : at_end)
    for (RunDevice &d : devices) {
      if (d.index != value_or<uint32_t>(e, "index", UINT32_MAX) ||
          !e.contains("host_minus_gpu_ns"))
        continue;
      if (!d.aligned) {
        d.aligned = d.aligned_at_end_only = true;
        d.host_minus_gpu_ns = value_or<int64_t>(e, "host_minus_gpu_ns", 0);
        d.alignment_error_ns = value_or<uint64_t>(e, "alignment_error_ns", 0);
        continue;
      }
      const int64_t end_offset = value_or<int64_t>(e, "host_minus_gpu_ns", d.host_minus_gpu_ns);
      // Unsigned arithmetic: offsets from a corrupt file wrap instead of overflowing int64_t.
      d.drift_ns = int64_t(uint64_t(end_offset) - uint64_t(d.host_minus_gpu_ns));
      const uint64_t drift = d.drift_ns < 0 ? 0 - uint64_t(d.drift_ns) : uint64_t(d.drift_ns);
      d.alignment_error_ns =
          std::max(d.alignment_error_ns, drift + value_or<uint64_t>(e, "alignment_error_ns", 0));
    }
}

// The launch's extent in raw globaltimer ns: earliest row start, latest row end (or last event
// of a row that never closed).
// origin + ns, for any double a damaged buffer can produce (negative, NaN, past 2^64): the
// conversion of an out-of-range double is undefined, so it saturates first.
uint64_t after_origin(uint64_t origin, double ns) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  if (!(ns > 0))
    return origin;
  if (ns >= 18446744073709551616.0) // 2^64
    return kMax;
  const uint64_t v = uint64_t(ns);
  return v > kMax - origin ? kMax : origin + v;
}

std::pair<uint64_t, uint64_t> extent_ns(const Trace &t) {
  uint64_t end = t.origin_ns;
  for (const Row &row : t.rows) {
    // A closed row ends at its end header, as buffer_extent_ns() says without decoding, so a
    // launch read without its records (RunReadOptions) is placed exactly the same.
    if (row.closed) {
      end = std::max(end, row.end_ns);
      continue;
    }
    end = std::max(end, row.start_ns);
    for (const Slice &s : row.slices)
      end = std::max(end, after_origin(t.origin_ns, s.end_ns));
    for (const Instant &i : row.instants)
      end = std::max(end, after_origin(t.origin_ns, i.ns));
  }
  return {t.origin_ns, end};
}

bool any_row_started(const Trace &t) {
  return std::any_of(t.rows.begin(), t.rows.end(), [](const Row &row) { return row.started; });
}

// Index of the device `ordinal` in `run.devices`, adding an unaligned entry for a device the
// run never described.
uint32_t device_slot(RunTrace &run, uint32_t ordinal) {
  for (uint32_t i = 0; i < run.devices.size(); ++i)
    if (run.devices[i].index == ordinal)
      return i;
  RunDevice d;
  d.index = ordinal;
  run.devices.push_back(d);
  return uint32_t(run.devices.size() - 1);
}

Expected<json> parse_section(const std::string &text, const char *what) {
  if (text.empty())
    return {json(), {}};
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return Expected<json>::failure(std::string("the run's ") + what +
                                   " section is not a JSON object");
  return {std::move(j), {}};
}

// Raw globaltimer ns per launch, kept until the axis is known. A launch none of whose rows
// started (or whose buffer did not decode) has no time of its own: `timed` false.
struct Placed {
  uint64_t begin, end;
  bool timed;
};

void place_on_axis(RunTrace &run, const std::vector<Placed> &raw,
                   const std::vector<uint64_t> &enqueue) {
  bool aligned = !run.devices.empty();
  for (const RunDevice &d : run.devices)
    aligned = aligned && d.aligned;
  run.host_aligned = aligned;
  auto axis = [&](uint64_t gpu_ns, uint32_t device) {
    // Unsigned arithmetic: a corrupt offset wraps instead of overflowing int64_t.
    return aligned ? gpu_ns + uint64_t(run.devices[device].host_minus_gpu_ns) : gpu_ns;
  };
  uint64_t origin = std::numeric_limits<uint64_t>::max();
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i].timed)
      origin = std::min(origin, axis(raw[i].begin, run.launches[i].device));
    if (aligned && enqueue[i] != 0)
      origin = std::min(origin, enqueue[i]);
  }
  if (origin == std::numeric_limits<uint64_t>::max())
    origin = 0;
  run.origin_ns = origin;
  for (size_t i = 0; i < raw.size(); ++i) {
    RunLaunch &l = run.launches[i];
    if (raw[i].timed) {
      l.begin_ns = double(axis(raw[i].begin, l.device) - origin);
      l.end_ns = double(axis(raw[i].end, l.device) - origin);
    } else { // at its enqueue when that is on the axis, else at the axis's zero; no length
      const uint64_t at = aligned && enqueue[i] != 0 ? enqueue[i] : origin;
      l.begin_ns = l.end_ns = double(at - origin);
    }
    l.offset_ns = l.begin_ns; // the trace's origin is its earliest row start
    if (aligned && enqueue[i] != 0)
      l.enqueue_ns = double(int64_t(enqueue[i] - origin));
  }
}

void sort_by_begin(RunTrace &run) {
  std::stable_sort(run.launches.begin(), run.launches.end(),
                   [](const RunLaunch &a, const RunLaunch &b) { return a.begin_ns < b.begin_ns; });
}

} // namespace

Expected<RunTrace> decode_run(const Run &run, const std::string &file, const DecodeOptions &options,
                              const RunProgress &progress) {
  using E = Expected<RunTrace>;
  Expected<json> head = parse_section(run.run_json, "RUN");
  Expected<json> end = parse_section(run.end_json, "END");
  if (!head || !end)
    return E::failure(!head ? head.error : end.error);
  RunTrace out;
  out.problems = run.problems;
  out.processes.push_back(process_from(*head, *end, file));
  if (run.run_json.empty()) // a single launch (version 1): nothing more is known
    out.processes.back().complete = true;
  for (const std::string &text : run.devices) {
    Expected<json> d = parse_section(text, "DEV");
    if (!d)
      return E::failure(d.error);
    out.devices.push_back(device_from(*d));
    out.devices.back().marker_cost_taken_out =
        out.devices.back().marker_cost && options.run_marker_cost && !options.marker_cost;
  }
  if (end->is_object())
    apply_end_alignments(out.devices, end->value("devices_at_end", json::array()));
  std::vector<bool> usable;
  for (size_t m = 0; m < run.maps.size(); ++m) {
    Expected<DecodeMap> map = parse_decode_map(run.maps[m]);
    usable.push_back(bool(map));
    if (!map)
      out.problems.push_back("decode map " + std::to_string(m) + ": " + map.error +
                             "; its launches are shown without detail");
    out.maps.push_back(map ? std::move(*map) : DecodeMap{});
  }
  std::vector<Placed> raw;
  std::vector<uint64_t> enqueue;
  size_t done = 0;
  for (const LaunchRecord &rec : run.launches) {
    ++done;
    RunLaunch l;
    l.device = device_slot(out, rec.device);
    l.map = rec.map;
    l.stream = rec.stream;
    l.launch_index = rec.launch_index;
    l.sequence = rec.sequence;
    l.in_graph = (rec.flags & kLaunchInGraph) != 0;
    l.body_offset = rec.body_offset;
    l.body_length = rec.body_length;
    l.section_flags = rec.section_flags;
    std::copy(rec.grid, rec.grid + 3, l.grid);
    std::copy(rec.block, rec.block + 3, l.block);
    const bool readable = rec.map < out.maps.size() && usable[rec.map];
    if (rec.buffer_dropped || !readable) {
      // Without its records (RunReadOptions) or without a map to read them by, the launch still
      // takes its place on the axis from its row headers: no launch of the file is left out.
      l.detail = false;
      l.header_gaps.dropped_events = rec.gaps.dropped_events;
      l.header_gaps.rows_overflowed = rec.gaps.rows_overflowed;
      l.header_gaps.rows_never_ended = rec.gaps.rows_never_ended;
      l.header_gaps.slots_needed = rec.gaps.slots_needed;
      l.header_gaps.dropped_in_sized_rows =
          rec.gaps.dropped_events != 0 && rec.gaps.rows_sized_at_launch;
      l.header_gaps.dropped_in_built_rows =
          rec.gaps.dropped_events != 0 && !rec.gaps.rows_sized_at_launch;
      l.header_gaps.ctas_left_out = rec.gaps.ctas_left_out;
      l.header_gaps.cta_stride = rec.gaps.cta_stride;
      l.trace.kernel = readable ? out.maps[rec.map].kernel
                                : "(decode map " + std::to_string(rec.map) + " unreadable)";
      if (!readable)
        l.trace.problems.push_back("its decode map " + std::to_string(rec.map) +
                                   " could not be read; the launch is shown without detail");
      const auto [b, e] = rec.buffer_dropped
                              ? std::pair<uint64_t, uint64_t>{rec.first_ns, rec.last_ns}
                              : buffer_extent_ns(rec.buffer.data(), rec.buffer.size());
      raw.push_back({b, e, b != 0});
    } else {
      l.trace = decode(out.maps[rec.map], rec.buffer.data(), rec.buffer.size(),
                       launch_options(options, out.devices[l.device], out.maps[rec.map]));
      const auto [b, e] = extent_ns(l.trace);
      raw.push_back({b, e, any_row_started(l.trace)});
    }
    enqueue.push_back(rec.host_enqueue_ns);
    out.launches.push_back(std::move(l));
    if (progress)
      progress(done, run.launches.size());
  }
  for (const LostLaunch &lost : run.lost) {
    UndecodedLaunch u;
    u.file = file;
    u.sequence = lost.sequence;
    if (lost.map && *lost.map < out.maps.size())
      u.kernel = out.maps[*lost.map].kernel;
    u.why = lost.why;
    out.lost.push_back(std::move(u));
  }
  place_on_axis(out, raw, enqueue);
  sort_by_begin(out);
  return E{std::move(out), {}};
}

std::optional<RunLaunch> with_detail(const RunTrace &run, const RunLaunch &launch,
                                     const DecodeOptions &options) {
  if (launch.detail || launch.body_offset == 0 || launch.map >= run.maps.size() ||
      launch.device >= run.devices.size() ||
      run.devices[launch.device].process >= run.processes.size())
    return std::nullopt;
  const std::string &file = run.processes[run.devices[launch.device].process].file;
  const DecodeMap &map = run.maps[launch.map];
  if (file.empty() || map.kernel.empty())
    return std::nullopt;
  LaunchRecord rec;
  rec.body_offset = launch.body_offset;
  rec.body_length = launch.body_length;
  rec.section_flags = launch.section_flags;
  Expected<std::vector<uint8_t>> buffer = read_launch_buffer(file, rec);
  if (!buffer)
    return std::nullopt;
  RunLaunch out = launch;
  out.trace = decode(map, buffer->data(), buffer->size(),
                     launch_options(options, run.devices[launch.device], map));
  out.detail = true;
  out.header_gaps = {};
  return out;
}

// Moves a host-aligned run back onto raw globaltimer (each launch by its own device's offset),
// for merging with runs that have no host alignment. Enqueue times only exist on host time.
void to_raw_globaltimer(RunTrace &r) {
  if (!r.host_aligned)
    return;
  int64_t earliest = std::numeric_limits<int64_t>::max();
  auto raw = [&](double axis_ns, const RunLaunch &l) {
    return int64_t(r.origin_ns + uint64_t(int64_t(axis_ns)) -
                   uint64_t(r.devices[l.device].host_minus_gpu_ns));
  };
  for (const RunLaunch &l : r.launches)
    earliest = std::min(earliest, raw(l.begin_ns, l));
  if (r.launches.empty())
    earliest = int64_t(r.origin_ns);
  for (RunLaunch &l : r.launches) {
    const double shift = double(raw(l.begin_ns, l) - earliest) - l.begin_ns;
    l.begin_ns += shift, l.end_ns += shift, l.offset_ns += shift;
    l.enqueue_ns.reset();
  }
  r.origin_ns = uint64_t(earliest);
  r.host_aligned = false;
}

// How far apart the merged processes' host clocks may be (RunTrace::hosts,
// host_clock_bound_ns): processes of one host share its clock; a host's error is the largest its
// processes stated, unknown when one of them did not state it.
void state_host_clocks(RunTrace &run) {
  std::map<std::string, std::optional<uint64_t>> by_host;
  for (const RunProcess &p : run.processes) {
    const auto [it, first] = by_host.try_emplace(p.host, p.host_clock_error_ns);
    if (!first)
      it->second = it->second && p.host_clock_error_ns
                       ? std::optional<uint64_t>(std::max(*it->second, *p.host_clock_error_ns))
                       : std::nullopt;
  }
  run.hosts = uint32_t(std::max<size_t>(by_host.size(), 1));
  run.host_clock_bound_ns = 0;
  if (run.hosts < 2)
    return;
  uint64_t largest = 0, second = 0;
  std::vector<std::string> unknown;
  for (const auto &[host, error] : by_host) {
    if (!error) {
      unknown.push_back(host.empty() ? "(unnamed)" : host);
      continue;
    }
    second = std::max(second, std::min(largest, *error));
    largest = std::max(largest, *error);
  }
  if (unknown.empty()) {
    run.host_clock_bound_ns = largest + second;
    return;
  }
  run.host_clock_bound_ns.reset();
  if (!run.host_aligned) // the merge's own problem already says the processes may be shifted
    return;
  std::string named; // the first four, then how many more
  for (size_t i = 0; i < unknown.size() && i < 4; ++i)
    named += (i ? ", " : "") + unknown[i];
  if (unknown.size() > 4)
    named += " and " + std::to_string(unknown.size() - 4) + " more";
  run.problems.push_back("processes of " + std::to_string(run.hosts) +
                         " hosts are each placed by their host's clock, and the clock" +
                         (unknown.size() > 1 ? "s of " + named + " were" : " of " + named + " was") +
                         " not known to be synchronised: processes of different hosts may be "
                         "shifted against each other by any amount");
}

RunTrace merge_runs(std::vector<RunTrace> runs) {
  RunTrace out;
  if (runs.empty())
    return out;
  bool aligned = true;
  for (const RunTrace &r : runs)
    aligned = aligned && r.host_aligned;
  uint64_t origin = std::numeric_limits<uint64_t>::max();
  for (RunTrace &r : runs) {
    if (!aligned) // one axis for all: raw globaltimer
      to_raw_globaltimer(r);
    if (!r.launches.empty())
      origin = std::min(origin, r.origin_ns);
  }
  if (origin == std::numeric_limits<uint64_t>::max())
    origin = 0;
  if (!aligned && runs.size() > 1)
    out.problems.push_back("not every process measured its GPUs' clock offsets to the host: "
                           "their timelines are placed by raw globaltimer and may be shifted "
                           "against each other");
  for (RunTrace &r : runs) {
    const uint32_t process0 = uint32_t(out.processes.size());
    const uint32_t device0 = uint32_t(out.devices.size());
    const uint32_t map0 = uint32_t(out.maps.size());
    const double shift = double(int64_t(r.origin_ns - origin));
    for (RunProcess &p : r.processes)
      out.processes.push_back(std::move(p));
    for (RunDevice &d : r.devices) {
      d.process += process0;
      out.devices.push_back(std::move(d));
    }
    for (DecodeMap &m : r.maps)
      out.maps.push_back(std::move(m));
    for (RunLaunch &l : r.launches) {
      l.device += device0;
      l.map += map0;
      l.begin_ns += shift, l.end_ns += shift, l.offset_ns += shift;
      if (l.enqueue_ns)
        *l.enqueue_ns += shift;
      out.launches.push_back(std::move(l));
    }
    for (std::string &problem : r.problems)
      out.problems.push_back(std::move(problem));
    for (UndecodedLaunch &lost : r.lost)
      out.lost.push_back(std::move(lost));
  }
  out.origin_ns = origin;
  out.host_aligned = aligned;
  state_host_clocks(out);
  sort_by_begin(out);
  return out;
}

} // namespace cutrace
