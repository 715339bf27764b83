// torch.profiler's trace and a cutrace run as one Perfetto trace (cutrace/torch_merge.h): the
// profiler's events first read and the run's launches matched to its kernel slices, then
// everything written: a track per profiler process and thread (events that do not nest on one
// thread go onto as few extra tracks as keep them nested), and under each GPU stream's track the
// SM slot tracks holding the rows of the launches matched on it (pftrace_rows.h).
#include "pftrace_rows.h"
#include "pftrace_writer.h"

#include <cutrace/torch_merge.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>

namespace cutrace {

namespace pftrace {
void completeness_args(EventArgs &args, const Completeness &c); // export_pftrace.cpp
}

namespace {

using json = nlohmann::json;
using namespace pftrace;

int64_t whole(double ns) { return int64_t(std::llround(ns)); }

// A profiler event with a duration ("X"), or an instant ("i", "I"), on the export's axis.
struct ProfilerEvent {
  std::string name, category;
  std::string pid, tid; // as the trace spells them: numbers or names
  int64_t begin = 0, end = 0;
  bool instant = false;
  const json *args = nullptr;
  std::optional<int64_t> device; // args.device of a kernel
};

struct Profile {
  json document;
  std::vector<ProfilerEvent> events;
  std::map<std::string, std::string> process_names;                      // pid -> name
  std::map<std::pair<std::string, std::string>, std::string> thread_names; // (pid, tid) -> name
  uint64_t origin_ns = 0; // the export's zero on host CLOCK_REALTIME
};

std::string id_text(const json &v) {
  if (v.is_string())
    return v.get<std::string>();
  if (v.is_number_integer())
    return std::to_string(v.get<int64_t>());
  return v.dump();
}

std::optional<int64_t> integer_arg(const json &args, const char *key) {
  if (!args.is_object() || !args.contains(key) || !args[key].is_number_integer())
    return std::nullopt;
  return args[key].get<int64_t>();
}

Expected<Profile> read_profile(const std::string &text) {
  using E = Expected<Profile>;
  Profile p;
  p.document = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (p.document.is_discarded())
    return E::failure("the profiler trace is not JSON");
  const json *events = &p.document;
  if (p.document.is_object()) {
    if (!p.document.contains("traceEvents") || !p.document["traceEvents"].is_array())
      return E::failure("the profiler trace has no traceEvents list");
    events = &p.document["traceEvents"];
  } else if (!p.document.is_array()) {
    return E::failure("the profiler trace is neither an object nor a list of events");
  }
  // ts is in µs: since baseTimeNanoseconds when the trace gives it (torch 2), else since the epoch.
  // An integer read as one: a double holds 1.8e18 ns only to 256 ns.
  uint64_t base_ns = 0;
  if (p.document.is_object() && p.document.contains("baseTimeNanoseconds")) {
    const json &base = p.document["baseTimeNanoseconds"];
    if (base.is_number_unsigned())
      base_ns = base.get<uint64_t>();
    else if (base.is_number())
      base_ns = uint64_t(std::llround(base.get<double>()));
  }
  double first_us = INFINITY;
  for (const json &e : *events)
    if (e.is_object() && e.contains("ts") && e["ts"].is_number())
      first_us = std::min(first_us, e["ts"].get<double>());
  if (!std::isfinite(first_us))
    return E::failure("the profiler trace has no timed event");
  // The export's zero: the earliest event, whole µs, so its ns fit a double exactly.
  const double zero_us = std::floor(first_us);
  p.origin_ns = base_ns + uint64_t(std::llround(zero_us * 1000));
  for (const json &e : *events) {
    if (!e.is_object() || !e.contains("ph") || !e["ph"].is_string())
      continue;
    const std::string ph = e["ph"].get<std::string>();
    const std::string pid = e.contains("pid") ? id_text(e["pid"]) : "";
    const std::string tid = e.contains("tid") ? id_text(e["tid"]) : "";
    const json &args = e.contains("args") ? e["args"] : json();
    if (ph == "M") {
      const std::string kind = e.value("name", "");
      if (args.is_object() && args.contains("name") && args["name"].is_string()) {
        if (kind == "process_name")
          p.process_names[pid] = args["name"].get<std::string>();
        else if (kind == "thread_name")
          p.thread_names[{pid, tid}] = args["name"].get<std::string>();
      }
      continue;
    }
    if ((ph != "X" && ph != "i" && ph != "I") || !e.contains("ts") || !e["ts"].is_number())
      continue;
    ProfilerEvent ev;
    ev.name = e.contains("name") ? id_text(e["name"]) : "";
    ev.category = e.value("cat", "");
    ev.pid = pid;
    ev.tid = tid;
    ev.instant = ph != "X";
    ev.begin = whole((e["ts"].get<double>() - zero_us) * 1000);
    const double dur_us = e.contains("dur") && e["dur"].is_number() ? e["dur"].get<double>() : 0;
    ev.end = ev.begin + std::max<int64_t>(0, whole(dur_us * 1000));
    ev.args = e.contains("args") ? &e["args"] : nullptr;
    if (ev.args)
      ev.device = integer_arg(*ev.args, "device");
    p.events.push_back(std::move(ev));
  }
  return E{std::move(p), {}};
}

// How far apart a host-aligned run and the host clock can be (docs/launches.md: about 1 µs).
constexpr double kAlignmentBoundNs = 1000;

// Where a launch is matched: its span on the export's axis, and the kernel slice it lies in.
struct Placement {
  size_t launch = 0;  // index into RunTrace::launches
  size_t event = 0;   // index into Profile::events
  double shift_ns = 0;
  double offset_ns = 0; // the launch's trace origin on the export's axis
};

// How far [b, e] must move to lie inside [kb, ke] (to start at kb when it is longer).
double fit_shift(double b, double e, double kb, double ke) {
  if (e - b >= ke - kb || b < kb)
    return kb - b;
  return e > ke ? ke - e : 0;
}

// The profiler's clock and the run's can disagree by more than the tolerance: kineto stamps
// events with its own clock (TSC-derived on recent PyTorch), converted to the epoch at a point
// the trace does not state. The offset that lines the two up is found from the launches
// themselves: each of the profiler's first kernel slices of a recorded kernel is tried against
// each launch of that kernel, and the offset under which most of those slices meet a launch of
// their kernel within the tolerance wins (then the smaller total distance). The offset 0, the
// clocks as stated, is tried first and kept when nothing does better.
double clock_offset(const Profile &p, const RunTrace &run,
                    const std::map<std::string, std::vector<size_t>> &kernels,
                    double run_to_export, double tolerance_ns) {
  std::map<std::string, std::vector<std::pair<double, double>>> launches; // by base name, sorted
  for (const RunLaunch &l : run.launches)
    launches[torch_kernel_base_name(run.maps[l.map].kernel)].push_back(
        {l.begin_ns + run_to_export, l.end_ns + run_to_export});
  std::vector<std::pair<const std::vector<std::pair<double, double>> *, size_t>> anchors;
  for (auto &[name, spans] : launches) {
    std::sort(spans.begin(), spans.end());
    const auto k = kernels.find(name);
    if (k != kernels.end())
      for (size_t i : k->second)
        anchors.push_back({&spans, i});
  }
  std::sort(anchors.begin(), anchors.end(), [&](const auto &a, const auto &b) {
    return p.events[a.second].begin < p.events[b.second].begin;
  });
  constexpr size_t kScored = 64, kTried = 8, kLaunchesTried = 100'000;
  if (anchors.size() > kScored)
    anchors.resize(kScored);
  // How many of the scored slices meet a launch of their kernel, and how far their starts are
  // from those launches' starts in all.
  auto score = [&](double offset) {
    std::pair<size_t, double> s{0, 0};
    for (const auto &[spans, i] : anchors) {
      const double kb = double(p.events[i].begin), ke = double(p.events[i].end);
      auto at = std::lower_bound(spans->begin(), spans->end(),
                                 std::make_pair(kb - offset - tolerance_ns, -double(INFINITY)));
      if (at != spans->begin())
        --at; // a longer launch that began earlier
      double nearest = INFINITY;
      for (; at != spans->end() && at->first + offset <= ke + tolerance_ns; ++at) {
        const double b = at->first + offset, e = at->second + offset;
        if (std::max(b, kb) - std::min(e, ke) <= tolerance_ns)
          nearest = std::min(nearest, std::fabs(kb - b));
      }
      if (std::isfinite(nearest))
        ++s.first, s.second += nearest;
    }
    return s;
  };
  auto better = [](std::pair<size_t, double> a, std::pair<size_t, double> b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  };
  const std::pair<size_t, double> stated = score(0);
  if (stated.first == anchors.size())
    return 0;
  double chosen = 0;
  std::pair<size_t, double> best{0, INFINITY};
  for (size_t a = 0; a < std::min(kTried, anchors.size()); ++a) {
    const auto &[spans, i] = anchors[a];
    for (size_t l = 0; l < std::min(kLaunchesTried, spans->size()); ++l) {
      const double offset = double(p.events[i].begin) - (*spans)[l].first;
      const std::pair<size_t, double> s = score(offset);
      if (better(s, best))
        best = s, chosen = offset;
    }
  }
  // The clocks as stated stand unless another offset places more slices.
  return best.first > stated.first ? chosen : 0;
}

using KernelSlices = std::map<std::string, std::vector<size_t>>; // by base name

// Each launch matched to a kernel slice with the run moved by run_to_export onto the export's
// axis; fills the report's matched and unmatched lists.
std::vector<Placement> match_at(const Profile &p, const RunTrace &run,
                                const TorchMergeOptions &options, KernelSlices &kernels,
                                double run_to_export, TorchMergeReport &report) {
  std::vector<bool> used(p.events.size(), false);
  std::map<std::pair<uint32_t, uint64_t>, std::string> tid_of;     // (device, stream) -> tid
  std::map<std::pair<std::string, std::string>, uint64_t> stream_of; // (pid, tid) -> stream
  std::vector<Placement> placed;
  for (size_t li = 0; li < run.launches.size(); ++li) { // sorted by begin
    const RunLaunch &l = run.launches[li];
    const std::string &kernel = run.maps[l.map].kernel;
    const double b = l.begin_ns + run_to_export, e = l.end_ns + run_to_export;
    const int64_t device = run.devices[l.device].index;
    const auto known = tid_of.find({l.device, l.stream});
    std::optional<size_t> best;
    double best_overlap = -INFINITY;
    for (size_t i : kernels[torch_kernel_base_name(kernel)]) {
      const ProfilerEvent &k = p.events[i];
      if (used[i] || (k.device && *k.device != device))
        continue;
      if (known != tid_of.end() ? k.tid != known->second
                                : stream_of.count({k.pid, k.tid}) != 0)
        continue; // one profiler stream per run stream
      // Overlap when positive, else minus the gap between the two spans.
      const double overlap = std::min(e, double(k.end)) - std::max(b, double(k.begin));
      if (overlap < -options.tolerance_ns || overlap <= best_overlap)
        continue;
      best = i;
      best_overlap = overlap;
    }
    if (!best) {
      report.unmatched.emplace_back(l.sequence, "no " + kernel + " kernel slice of the profiler "
                                                "on its GPU and stream within the tolerance");
      continue;
    }
    const ProfilerEvent &k = p.events[*best];
    used[*best] = true;
    tid_of[{l.device, l.stream}] = k.tid;
    stream_of[{k.pid, k.tid}] = l.stream;
    report.streams[l.stream] = std::strtoll(k.tid.c_str(), nullptr, 10);
    Placement pl;
    pl.launch = li;
    pl.event = *best;
    pl.shift_ns = fit_shift(b, e, double(k.begin), double(k.end));
    pl.offset_ns = l.offset_ns + run_to_export + pl.shift_ns;
    placed.push_back(pl);
    TorchMatch m;
    m.sequence = l.sequence;
    m.kernel = kernel;
    m.profiler_name = k.name;
    m.pid = std::strtoll(k.pid.c_str(), nullptr, 10);
    m.tid = std::strtoll(k.tid.c_str(), nullptr, 10);
    m.shift_ns = pl.shift_ns;
    report.matched.push_back(m);
    report.max_shift_ns = std::max(report.max_shift_ns, std::fabs(pl.shift_ns));
  }
  return placed;
}

std::vector<Placement> match_launches(const Profile &p, const RunTrace &run,
                                      const TorchMergeOptions &options, TorchMergeReport &report) {
  KernelSlices kernels; // the candidates of each launch
  for (size_t i = 0; i < p.events.size(); ++i)
    if (p.events[i].category == "kernel" && !p.events[i].instant) {
      kernels[torch_kernel_base_name(p.events[i].name)].push_back(i);
      ++report.profiler_kernels;
    }
  const double stated = double(int64_t(run.origin_ns - p.origin_ns));
  const double offset = clock_offset(p, run, kernels, stated, options.tolerance_ns);
  TorchMergeReport first = report;
  std::vector<Placement> placed = match_at(p, run, options, kernels, stated + offset, first);
  // Most launches moved the same way is the clocks disagreeing, not each launch: the median move
  // joins the offset (on an H100 with PyTorch 2.11, kineto's clock was 35 µs behind the run's)
  // when it exceeds the alignment's bound, and the launches are matched again.
  std::vector<double> shifts;
  for (const Placement &pl : placed)
    shifts.push_back(pl.shift_ns);
  double median = 0;
  if (!shifts.empty()) {
    std::nth_element(shifts.begin(), shifts.begin() + shifts.size() / 2, shifts.end());
    median = shifts[shifts.size() / 2];
  }
  if (std::fabs(median) <= kAlignmentBoundNs) {
    first.clock_offset_ns = offset;
    report = std::move(first);
    return placed;
  }
  placed = match_at(p, run, options, kernels, stated + offset + median, report);
  report.clock_offset_ns = offset + median;
  return placed;
}

// The event's scalar args as debug annotations.
void event_args(EventArgs &args, const ProfilerEvent &e) {
  if (!e.args || !e.args->is_object())
    return;
  for (const auto &[key, v] : e.args->items()) {
    if (v.is_boolean())
      args.boolean(key, v.get<bool>());
    else if (v.is_number_unsigned())
      args.uinteger(key, v.get<uint64_t>());
    else if (v.is_number_integer())
      args.integer(key, v.get<int64_t>());
    else if (v.is_number_float())
      args.real(key, v.get<double>());
    else if (v.is_string())
      args.text(key, v.get<std::string>());
  }
}

// One profiler thread's events on as few tracks as keep them nested: track k takes an event when
// it lies inside the innermost event still open there.
class ThreadTracks {
public:
  ThreadTracks(TraceWriter &out, uint64_t parent, std::string name)
      : out_(out), parent_(parent), name_(std::move(name)) {}
  uint64_t first_track() { return lane(0).track; }
  // `more_args` adds to the event's annotations; `inside` writes what nests in it.
  void add(const ProfilerEvent &e, const std::function<void(EventArgs &)> &more_args,
           const std::function<void()> &inside) {
    size_t k = 0;
    for (;; ++k) {
      Lane &l = lane(k);
      close_until(l, e.begin);
      if (l.open.empty() || l.open.back() >= e.end)
        break;
    }
    Lane &l = lane(k);
    event_args(out_.args(), e);
    if (more_args)
      more_args(out_.args());
    if (e.instant) {
      out_.instant(l.track, e.begin, e.name);
      return;
    }
    out_.begin(l.track, e.begin, e.name);
    if (inside)
      inside();
    l.open.push_back(e.end);
  }
  void finish() {
    for (Lane &l : lanes_)
      close_until(l, INT64_MAX);
  }

private:
  struct Lane {
    uint64_t track;
    std::vector<int64_t> open; // ends of the events open on it, innermost last
  };
  Lane &lane(size_t k) {
    while (lanes_.size() <= k) {
      const std::string name =
          lanes_.empty() ? name_ : name_ + " (" + std::to_string(lanes_.size() + 1) + ")";
      lanes_.push_back({out_.track(name, parent_, int32_t(lanes_.size())), {}});
    }
    return lanes_[k];
  }
  void close_until(Lane &l, int64_t t) {
    while (!l.open.empty() && l.open.back() <= t) {
      out_.end(l.track, l.open.back());
      l.open.pop_back();
    }
  }
  TraceWriter &out_;
  uint64_t parent_;
  std::string name_;
  std::vector<Lane> lanes_;
};

// Ranks under a profiler thread's track: its own extra lanes first, then the SM slots.
constexpr int64_t kSlotRank = 1'000'000;

} // namespace

std::string torch_kernel_base_name(const std::string &name) {
  std::string s = name;
  // Cuts a trailing balanced (...) or <...> group.
  auto cut_group = [&s](char open, char close) {
    if (s.empty() || s.back() != close)
      return;
    int depth = 0;
    for (size_t i = s.size(); i-- > 0;) {
      depth += s[i] == close ? 1 : s[i] == open ? -1 : 0;
      if (depth == 0) {
        s.erase(i);
        return;
      }
    }
  };
  cut_group('(', ')');
  cut_group('<', '>');
  // The return type ends at the last space outside brackets; the name's last `::` part follows.
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    depth += (c == '(' || c == '<') ? 1 : (c == ')' || c == '>') ? -1 : 0;
    if (depth == 0 && (c == ' ' || (c == ':' && i + 1 < s.size() && s[i + 1] == ':')))
      start = c == ' ' ? i + 1 : i + 2;
  }
  s = s.substr(start);
  // A traced build launches K's twin, so the profiler names K_cutrace_traced (launch.h).
  static const std::string twin = "_cutrace_traced";
  if (s.size() > twin.size() && s.compare(s.size() - twin.size(), twin.size(), twin) == 0)
    s.erase(s.size() - twin.size());
  return s;
}

Expected<TorchMergeReport> merge_torch_profile(const std::string &profiler_json,
                                               const RunTrace &run, const ByteSink &sink,
                                               const TorchMergeOptions &options) {
  using E = Expected<TorchMergeReport>;
  if (!run.host_aligned)
    return E::failure("the run is not on the host clock (a GPU's clock was not aligned), so its "
                      "launches cannot be placed on the profiler's time axis");
  Expected<Profile> read = read_profile(profiler_json);
  if (!read)
    return E::failure(read.error);
  Profile &p = *read;
  TorchMergeReport report;
  std::vector<Placement> placed = match_launches(p, run, options, report);
  std::map<size_t, const Placement *> placement_of; // event -> the launch placed in it
  for (const Placement &pl : placed)
    placement_of[pl.event] = &pl;

  // Events of one thread in nesting order: by begin, the longer first.
  std::vector<size_t> order(p.events.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&p](size_t a, size_t b) {
    const ProfilerEvent &x = p.events[a], &y = p.events[b];
    return std::tie(x.pid, x.tid, x.begin) < std::tie(y.pid, y.tid, y.begin) ||
           (std::tie(x.pid, x.tid, x.begin) == std::tie(y.pid, y.tid, y.begin) && x.end > y.end);
  });

  TraceWriter out(sink, options.encoding);
  std::map<std::string, uint64_t> process_tracks;
  std::map<std::pair<std::string, std::string>, std::unique_ptr<ThreadTracks>> threads;
  std::map<std::pair<std::string, std::string>, std::unique_ptr<SmSlotTracks>> slots;
  uint64_t next_flow_id = 1;
  for (size_t i : order) {
    const ProfilerEvent &e = p.events[i];
    auto [proc, new_proc] = process_tracks.try_emplace(e.pid, 0);
    if (new_proc) {
      const auto name = p.process_names.find(e.pid);
      proc->second = out.track(name != p.process_names.end() ? name->second : "process " + e.pid,
                               0, std::nullopt, true);
    }
    std::unique_ptr<ThreadTracks> &thread = threads[{e.pid, e.tid}];
    if (!thread) {
      const auto name = p.thread_names.find({e.pid, e.tid});
      thread = std::make_unique<ThreadTracks>(
          out, proc->second, name != p.thread_names.end() ? name->second : "thread " + e.tid);
    }
    ++report.profiler_events;
    const auto placement = placement_of.find(i);
    if (placement == placement_of.end()) {
      thread->add(e, {}, {});
      continue;
    }
    const Placement &pl = *placement->second;
    const RunLaunch &listed = run.launches[pl.launch];
    std::optional<RunLaunch> loaded;
    if (!listed.detail && options.load_detail)
      loaded = options.load_detail(listed);
    const RunLaunch &l = loaded ? *loaded : listed;
    const auto launch_args = [&](EventArgs &args) {
      args.uinteger("cutrace_sequence", l.sequence).real("cutrace_shift_ns", pl.shift_ns);
      completeness_args(args, completeness_of(l));
    };
    thread->add(e, launch_args, [&] {
      if (!l.detail)
        return;
      std::unique_ptr<SmSlotTracks> &s = slots[{e.pid, e.tid}];
      if (!s)
        s = std::make_unique<SmSlotTracks>(thread->first_track(), kSlotRank);
      s->write(out, run.maps[l.map], l.trace, pl.offset_ns, next_flow_id, l.sequence);
      next_flow_id += l.trace.flows.size();
    });
  }
  for (auto &[key, thread] : threads)
    thread->finish();
  if (!out.finish())
    return E::failure("the output could not be written");
  return E{std::move(report), {}};
}

} // namespace cutrace
