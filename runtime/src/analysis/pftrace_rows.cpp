// One launch's rows as Perfetto TrackEvents (pftrace_rows.h).
#include "pftrace_rows.h"

#include <cutrace/analysis.h>
#include <cutrace/export.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace cutrace::pftrace {

namespace {

using perfetto::Event;
using perfetto::Ph;

enum class Kind : uint8_t { row_begin, row_end, slice_begin, slice_end, instant };

// One TrackEvent to write. Within a track, items come in an order the importer nests correctly;
// `tie` orders items of different tracks at one time so a flow's source is seen before its
// destination.
struct Item {
  int64_t ts;
  uint32_t tie;
  uint64_t seq;
  Kind kind;
  uint32_t row, index; // slices and instants: index into the row's slices / instants
  uint64_t track;
};

uint64_t key(uint32_t row, uint32_t slice) { return (uint64_t(row) << 32) | slice; }

int64_t whole(double ns) { return int64_t(std::llround(ns)); }

std::string cta_xyz(const Trace &t, uint32_t cta) {
  const std::array<uint32_t, 3> xyz = cta_coords(t.header, cta);
  return "(" + std::to_string(xyz[0]) + "," + std::to_string(xyz[1]) + "," +
         std::to_string(xyz[2]) + ")";
}

} // namespace

std::string row_gaps(const Row &row) {
  std::string out;
  if (row.dropped)
    out += std::to_string(row.dropped) + " dropped";
  if (row.never_ended())
    out += std::string(out.empty() ? "" : ", ") + "never ended";
  return out.empty() ? out : " [" + out + "]";
}

LaunchRows::LaunchRows(const DecodeMap &map, const Trace &trace, double offset_ns,
                       uint64_t first_flow_id, std::optional<uint64_t> sequence)
    : map_(map), trace_(trace), offset_ns_(offset_ns), sequence_(sequence) {
  source_.map = &map;
  source_.trace = &trace;
  source_.first_flow_id = first_flow_id;
  tracks_ = perfetto::row_tracks(source_, offset_ns, /*flow_points=*/false);
  for (const auto &[k, events] : tracks_) {
    if (rows_.empty() || rows_.back().row != k.row) {
      const Row &row = trace.rows[k.row];
      RowSpan span;
      span.row = k.row;
      span.begin = INT64_MAX;
      span.end = INT64_MIN;
      if (row.started) {
        span.begin = whole(offset_ns + row_start_ns(trace, row));
        span.end = whole(offset_ns + row_end_ns(trace, row));
      }
      rows_.push_back(span);
    }
    RowSpan &span = rows_.back();
    span.tracks.push_back(k);
    for (const Event &e : events) {
      span.begin = std::min(span.begin, int64_t(e.ts));
      span.end = std::max(span.end, int64_t(e.ph == Ph::slice ? e.end : e.ts));
    }
  }
  for (RowSpan &span : rows_)
    if (span.begin > span.end) // a row that never started and holds nothing: not in tracks_
      span.begin = span.end = 0;
}

void LaunchRows::write(TraceWriter &out,
                       const std::function<uint64_t(uint32_t row, uint32_t k)> &track_of) {
  const Trace &t = trace_;
  // Where each flow is bound: out of its source's BEGIN, into its destination's BEGIN when that
  // comes later, else its END. (The importer links a flow's events in time order, and the
  // viewer draws it from slice to slice whichever events carry it. On the ns axis a
  // destination can end before its source does: rows run at their own measured rates.)
  std::unordered_multimap<uint64_t, uint64_t> out_at_begin, in_at_begin, in_at_end;
  struct Handoff {
    const Slice *src;
    HandoffTiming timing;
  };
  std::unordered_map<uint64_t, Handoff> handoffs; // the first flow into a slice
  for (uint32_t f = 0; f < t.flows.size(); ++f) {
    const Flow &flow = t.flows[f];
    const Slice &a = t.rows[flow.src.row].slices[flow.src.slice];
    const Slice &b = t.rows[flow.dst.row].slices[flow.dst.slice];
    const uint64_t id = source_.first_flow_id + f;
    out_at_begin.emplace(key(flow.src.row, flow.src.slice), id);
    (whole(offset_ns_ + b.begin_ns) > whole(offset_ns_ + a.begin_ns) ? in_at_begin : in_at_end)
        .emplace(key(flow.dst.row, flow.dst.slice), id);
    handoffs.emplace(key(flow.dst.row, flow.dst.slice), Handoff{&a, handoff_timing(t, flow)});
  }

  std::vector<Item> items;
  uint64_t seq = 0;
  size_t span_index = 0;
  uint32_t sub = 0;
  std::vector<std::pair<int64_t, uint32_t>> open; // ends and slice indexes of the open slices
  for (auto &[k, events] : tracks_) {
    while (rows_[span_index].row != k.row)
      ++span_index, sub = 0;
    const RowSpan &span = rows_[span_index];
    const uint64_t track = track_of(k.row, sub++);
    std::sort(events.begin(), events.end(), [](const Event &a, const Event &b) {
      return a.ts != b.ts ? a.ts < b.ts : a.order < b.order;
    });
    const size_t first = items.size();
    items.push_back({span.begin, 0, seq++, Kind::row_begin, k.row, 0, track});
    open.clear();
    auto close_until = [&](int64_t ts) {
      while (!open.empty() && open.back().first <= ts) {
        items.push_back(
            {open.back().first, 0, seq++, Kind::slice_end, k.row, open.back().second, track});
        open.pop_back();
      }
    };
    for (const Event &e : events) {
      close_until(int64_t(e.ts));
      if (e.ph == Ph::slice) {
        items.push_back({int64_t(e.ts), 0, seq++, Kind::slice_begin, k.row, e.index, track});
        open.push_back({int64_t(e.end), e.index});
      } else if (e.ph == Ph::instant) {
        items.push_back({int64_t(e.ts), 0, seq++, Kind::instant, k.row, e.index, track});
      }
    }
    close_until(INT64_MAX);
    items.push_back({span.end, 0, seq++, Kind::row_end, k.row, 0, track});
    if (t.flows.empty())
      continue;
    // An item that takes a flow in waits, at its time, for the other tracks' items; the items
    // after it on its track at that time wait with it, keeping the track's order.
    uint32_t tie = 0;
    for (size_t i = first; i < items.size(); ++i) {
      Item &it = items[i];
      if (i > first && items[i - 1].ts != it.ts)
        tie = 0;
      const uint64_t sk = key(it.row, it.index);
      if ((it.kind == Kind::slice_begin && in_at_begin.count(sk)) ||
          (it.kind == Kind::slice_end && in_at_end.count(sk)))
        tie = 1;
      it.tie = tie;
    }
  }
  std::sort(items.begin(), items.end(), [](const Item &a, const Item &b) {
    return a.ts != b.ts ? a.ts < b.ts : a.tie != b.tie ? a.tie < b.tie : a.seq < b.seq;
  });

  std::vector<uint64_t> flows_out, flows_in;
  auto flows_of = [](const std::unordered_multimap<uint64_t, uint64_t> &m, uint64_t k,
                     std::vector<uint64_t> &ids) {
    ids.clear();
    if (m.empty())
      return;
    auto [a, b] = m.equal_range(k);
    for (; a != b; ++a)
      ids.push_back(a->second);
  };
  // Ids of the names every event repeats, looked up once per launch.
  const Interned k_payload = out.annotation_name("payload"),
                 k_begin_cycles = out.annotation_name("begin_cycles"),
                 k_dur_cycles = out.annotation_name("dur_cycles"),
                 k_cycles = out.annotation_name("cycles"), k_loc = out.annotation_name("loc");
  struct SiteIds {
    Interned name, loc; // loc 0: the map has no such site
  };
  std::unordered_map<uint32_t, SiteIds> sites; // by site id (a site's events share its name)
  auto site_ids = [&](uint32_t site, const std::string &name) -> const SiteIds & {
    auto found = sites.find(site);
    if (found != sites.end())
      return found->second;
    SiteIds ids{out.event_name(name), {}};
    if (const Site *where = map_.site(site))
      ids.loc = out.annotation_string(where->loc);
    return sites.emplace(site, ids).first->second;
  };
  const std::string kernel = trace_.kernel;
  for (const Item &it : items) {
    const Row &row = t.rows[it.row];
    switch (it.kind) {
    case Kind::row_begin: {
      EventArgs &args = out.args();
      args.interned_text("kernel", kernel);
      if (sequence_)
        args.uinteger("launch", *sequence_);
      // The CTA's coordinates repeat launch after launch: interned. The SM is in the track's name.
      args.interned_text("cta", cta_xyz(t, row.cta))
          .interned_text("group", row.group < map_.groups.size() ? map_.groups[row.group].name
                                                                 : "#" + std::to_string(row.group));
      if (row.dropped)
        args.uinteger("dropped", row.dropped);
      if (row.never_ended())
        args.boolean("never_ended", true);
      const std::string gaps = row_gaps(row);
      const std::string label = row.label.empty() ? "row" : row.label;
      if (gaps.empty())
        out.begin(it.track, it.ts, label);
      else
        out.begin(it.track, it.ts, label + gaps, /*inline_name=*/true);
      break;
    }
    case Kind::row_end:
      out.end(it.track, it.ts);
      break;
    case Kind::slice_begin: {
      const Slice &s = row.slices[it.index];
      const SiteIds &ids = site_ids(s.site, s.name);
      EventArgs &args = out.args();
      args.integer(k_payload, s.payload)
          .uinteger(k_begin_cycles, s.begin_cycles)
          .uinteger(k_dur_cycles, s.end_cycles - s.begin_cycles);
      if (ids.loc.iid)
        args.interned_text(k_loc, ids.loc);
      if (s.incomplete)
        args.boolean("incomplete", true);
      const uint64_t sk = key(it.row, it.index);
      if (!handoffs.empty()) {
        auto h = handoffs.find(sk);
        if (h != handoffs.end()) { // one of wait and gap is 0: left out, as is its cycles
          const HandoffTiming &timing = h->second.timing;
          args.interned_text("handoff_src", h->second.src->name);
          if (timing.wait_ns > 0)
            args.real("wait_ns", timing.wait_ns)
                .uinteger("wait_cycles", uint64_t(std::llround(timing.wait_cycles)));
          if (timing.gap_ns > 0)
            args.real("gap_ns", timing.gap_ns);
        }
      }
      flows_of(out_at_begin, sk, flows_out);
      flows_of(in_at_begin, sk, flows_in);
      out.begin(it.track, it.ts, ids.name, flows_out, flows_in);
      break;
    }
    case Kind::slice_end: {
      const uint64_t sk = key(it.row, it.index);
      flows_of(in_at_end, sk, flows_in);
      out.end(it.track, it.ts, {}, flows_in);
      break;
    }
    case Kind::instant: {
      const Instant &i = row.instants[it.index];
      const SiteIds &ids = site_ids(i.site, i.name);
      EventArgs &args = out.args();
      args.integer(k_payload, i.payload).uinteger(k_cycles, i.cycles);
      if (ids.loc.iid)
        args.interned_text(k_loc, ids.loc);
      out.instant(it.track, it.ts, ids.name);
      break;
    }
    }
  }
}

} // namespace cutrace::pftrace
