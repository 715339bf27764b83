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

namespace {

// Where each flow is bound: out of its source's BEGIN, into its destination's BEGIN when that
// comes later, else its END. (The importer links a flow's events in time order, and the viewer
// draws it from slice to slice whichever events carry it. On the ns axis a destination can end
// before its source does: rows run at their own measured rates.)
struct FlowBindings {
  std::unordered_multimap<uint64_t, uint64_t> out_at_begin, in_at_begin, in_at_end;
  struct Handoff {
    const Slice *src;
    HandoffTiming timing;
  };
  std::unordered_map<uint64_t, Handoff> handoffs; // the first flow into a slice

  FlowBindings(const Trace &t, double offset_ns, uint64_t first_flow_id) {
    for (uint32_t f = 0; f < t.flows.size(); ++f) {
      const Flow &flow = t.flows[f];
      const Slice &a = t.rows[flow.src.row].slices[flow.src.slice];
      const Slice &b = t.rows[flow.dst.row].slices[flow.dst.slice];
      const uint64_t id = first_flow_id + f, dst = key(flow.dst.row, flow.dst.slice);
      out_at_begin.emplace(key(flow.src.row, flow.src.slice), id);
      (whole(offset_ns + b.begin_ns) > whole(offset_ns + a.begin_ns) ? in_at_begin : in_at_end)
          .emplace(dst, id);
      handoffs.emplace(dst, Handoff{&a, handoff_timing(t, flow)});
    }
  }
  bool takes_flow_in(const Item &it) const {
    return (it.kind == Kind::slice_begin && in_at_begin.count(key(it.row, it.index))) ||
           (it.kind == Kind::slice_end && in_at_end.count(key(it.row, it.index)));
  }
  static void ids(const std::unordered_multimap<uint64_t, uint64_t> &at, uint64_t slice,
                  std::vector<uint64_t> &out) {
    out.clear();
    if (at.empty())
      return;
    auto [a, b] = at.equal_range(slice);
    for (; a != b; ++a)
      out.push_back(a->second);
  }
};

// The items of one track, in an order the importer nests: the row slice around the row's
// slices and instants (sorted by time, a longer slice first on a tie), each slice ended before
// anything that begins at or after its end.
void track_items(std::vector<Event> &events, const RowSpan &span, uint32_t row, uint64_t track,
                 uint64_t &seq, std::vector<Item> &items) {
  std::sort(events.begin(), events.end(), [](const Event &a, const Event &b) {
    return a.ts != b.ts ? a.ts < b.ts : a.order < b.order;
  });
  items.push_back({span.begin, 0, seq++, Kind::row_begin, row, 0, track});
  std::vector<std::pair<int64_t, uint32_t>> open; // ends and slice indexes of the open slices
  auto close_until = [&](int64_t ts) {
    while (!open.empty() && open.back().first <= ts) {
      items.push_back(
          {open.back().first, 0, seq++, Kind::slice_end, row, open.back().second, track});
      open.pop_back();
    }
  };
  for (const Event &e : events) {
    close_until(int64_t(e.ts));
    if (e.ph == Ph::slice) {
      items.push_back({int64_t(e.ts), 0, seq++, Kind::slice_begin, row, e.index, track});
      open.push_back({int64_t(e.end), e.index});
    } else if (e.ph == Ph::instant) {
      items.push_back({int64_t(e.ts), 0, seq++, Kind::instant, row, e.index, track});
    }
  }
  close_until(INT64_MAX);
  items.push_back({span.end, 0, seq++, Kind::row_end, row, 0, track});
}

// An item that takes a flow in waits, at its time, for the other tracks' items (its source's
// among them); the items after it on its track at that time wait with it, keeping the track's
// order. `items[first...]` are one track's.
void hold_flow_ends(std::vector<Item> &items, size_t first, const FlowBindings &flows) {
  uint32_t tie = 0;
  for (size_t i = first; i < items.size(); ++i) {
    if (i > first && items[i - 1].ts != items[i].ts)
      tie = 0;
    if (flows.takes_flow_in(items[i]))
      tie = 1;
    items[i].tie = tie;
  }
}

// Writes the items of one launch, the names they repeat interned once.
class ItemWriter {
public:
  ItemWriter(TraceWriter &out, const DecodeMap &map, const Trace &t,
             std::optional<uint64_t> sequence, const FlowBindings &flows)
      : out_(out), map_(map), t_(t), sequence_(sequence), flows_(flows),
        payload_(out.annotation_name("payload")),
        begin_cycles_(out.annotation_name("begin_cycles")),
        dur_cycles_(out.annotation_name("dur_cycles")), cycles_(out.annotation_name("cycles")) {}

  void write(const Item &it) {
    switch (it.kind) {
    case Kind::row_begin:
      return row_begin(it);
    case Kind::row_end:
      return out_.end(it.track, it.ts);
    case Kind::slice_begin:
      return slice_begin(it);
    case Kind::slice_end:
      FlowBindings::ids(flows_.in_at_end, key(it.row, it.index), flows_in_);
      return out_.end(it.track, it.ts, {}, flows_in_);
    case Kind::instant:
      return instant(it);
    }
  }

private:
  struct SiteIds {
    Interned name, loc; // loc: its source location (0: the map has no such site)
  };
  // A site's events share its name: interned once per site and launch.
  const SiteIds &site_ids(uint32_t site, const std::string &name) {
    auto found = sites_.find(site);
    if (found != sites_.end())
      return found->second;
    SiteIds ids{out_.event_name(name), {}};
    if (const Site *where = map_.site(site))
      ids.loc = out_.source_location(where->loc);
    return sites_.emplace(site, ids).first->second;
  }

  void row_begin(const Item &it) {
    const Row &row = t_.rows[it.row];
    EventArgs &args = out_.args();
    args.interned_text("kernel", t_.kernel);
    if (sequence_)
      args.uinteger("launch", *sequence_);
    // The CTA's coordinates repeat launch after launch: interned. The SM is in the track's name,
    // the group in the slice's (the row's label is the group's name, or it with the row's
    // slice: consumer[w3]).
    args.interned_text("cta", cta_xyz(t_, row.cta));
    if (row.dropped)
      args.uinteger("dropped", row.dropped);
    if (row.never_ended())
      args.boolean("never_ended", true);
    const std::string gaps = row_gaps(row);
    const std::string label = row.label.empty() ? "row" : row.label;
    if (gaps.empty())
      out_.begin(it.track, it.ts, label);
    else
      out_.begin(it.track, it.ts, label + gaps, /*inline_name=*/true);
  }

  void slice_begin(const Item &it) {
    const Slice &s = t_.rows[it.row].slices[it.index];
    const SiteIds &ids = site_ids(s.site, s.name);
    EventArgs &args = out_.args();
    args.integer(payload_, s.payload)
        .uinteger(begin_cycles_, s.begin_cycles)
        .uinteger(dur_cycles_, s.end_cycles - s.begin_cycles);
    if (s.incomplete)
      args.boolean("incomplete", true);
    const uint64_t sk = key(it.row, it.index);
    auto h = flows_.handoffs.find(sk);
    if (h != flows_.handoffs.end()) { // one of wait and gap is 0: left out, as is its cycles
      const HandoffTiming &timing = h->second.timing;
      args.interned_text("handoff_src", h->second.src->name);
      if (timing.wait_ns > 0)
        args.real("wait_ns", timing.wait_ns)
            .uinteger("wait_cycles", uint64_t(std::llround(timing.wait_cycles)));
      if (timing.gap_ns > 0)
        args.real("gap_ns", timing.gap_ns);
    }
    FlowBindings::ids(flows_.out_at_begin, sk, flows_out_);
    FlowBindings::ids(flows_.in_at_begin, sk, flows_in_);
    // A slice whose END was not recorded has no duration: its name says so, so the length drawn
    // (to the row's last timestamp) is not read as how long it ran.
    const Interned name = s.incomplete ? out_.event_name(s.name + kIncompleteSuffix) : ids.name;
    out_.begin(it.track, it.ts, name, flows_out_, flows_in_, ids.loc);
  }

  void instant(const Item &it) {
    const Instant &i = t_.rows[it.row].instants[it.index];
    const SiteIds &ids = site_ids(i.site, i.name);
    EventArgs &args = out_.args();
    args.integer(payload_, i.payload).uinteger(cycles_, i.cycles);
    out_.instant(it.track, it.ts, ids.name, ids.loc);
  }

  TraceWriter &out_;
  const DecodeMap &map_;
  const Trace &t_;
  std::optional<uint64_t> sequence_;
  const FlowBindings &flows_;
  Interned payload_, begin_cycles_, dur_cycles_, cycles_;
  std::unordered_map<uint32_t, SiteIds> sites_;
  std::vector<uint64_t> flows_out_, flows_in_;
};

} // namespace

void LaunchRows::write(TraceWriter &out,
                       const std::function<uint64_t(uint32_t row, uint32_t k)> &track_of) {
  const FlowBindings flows(trace_, offset_ns_, source_.first_flow_id);
  std::vector<Item> items;
  uint64_t seq = 0;
  size_t span = 0;
  uint32_t k = 0; // the track's place among its row's
  for (auto &[place, events] : tracks_) {
    while (rows_[span].row != place.row)
      ++span, k = 0;
    const size_t first = items.size();
    track_items(events, rows_[span], place.row, track_of(place.row, k++), seq, items);
    if (!trace_.flows.empty())
      hold_flow_ends(items, first, flows);
  }
  std::sort(items.begin(), items.end(), [](const Item &a, const Item &b) {
    return a.ts != b.ts ? a.ts < b.ts : a.tie != b.tie ? a.tie < b.tie : a.seq < b.seq;
  });
  ItemWriter writer(out, map_, trace_, sequence_, flows);
  for (const Item &it : items)
    writer.write(it);
}

void SmSlotTracks::write(TraceWriter &out, const DecodeMap &map, const Trace &trace,
                         double offset_ns, uint64_t first_flow_id,
                         std::optional<uint64_t> sequence) {
  LaunchRows rows(map, trace, offset_ns, first_flow_id, sequence);
  std::vector<const RowSpan *> order;
  for (const RowSpan &s : rows.rows())
    order.push_back(&s);
  std::stable_sort(order.begin(), order.end(),
                   [](const RowSpan *a, const RowSpan *b) { return a->begin < b->begin; });
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> slot_of; // row -> (smid, slot)
  for (const RowSpan *s : order) {
    const uint32_t smid = trace.rows[s->row].smid;
    std::vector<int64_t> &ends = slot_end_[smid];
    uint32_t slot = 0;
    while (slot < ends.size() && ends[slot] > s->begin)
      ++slot;
    if (slot == ends.size())
      ends.push_back(s->end);
    ends[slot] = std::max(ends[slot], s->end);
    slot_of[s->row] = {smid, slot};
  }
  rows.write(out, [&](uint32_t row, uint32_t k) {
    const auto [smid, slot] = slot_of.at(row);
    auto [it, added] = tracks_.try_emplace({smid, slot, k}, 0);
    if (added) {
      std::string name = "SM " + std::to_string(smid) + " \u00b7 slot " + std::to_string(slot);
      if (k)
        name += " \u00b7 " + std::to_string(k + 1);
      const int64_t rank = first_rank_ + int64_t(smid) * 4096 +
                           std::min<uint32_t>(slot, 63) * 64 + std::min<uint32_t>(k, 63);
      it->second = out.track(name, parent_, int32_t(std::min<int64_t>(rank, INT32_MAX)));
    }
    return it->second;
  });
}

} // namespace cutrace::pftrace
