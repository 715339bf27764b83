// The decoded launch as JSON: the `<kernel>.json` output of the host runtime.
#include "completeness_json.h"
#include "slice_groups_json.h"

#include <cutrace/ctrace.h>
#include <cutrace/export.h>

#include <nlohmann/json.hpp>

namespace cutrace {

namespace {

using nlohmann::json;

std::string lane_name(const DecodeMap &map, uint32_t lane) {
  return lane < map.lanes.size() ? map.lanes[lane] : "?";
}

json slice_json(const DecodeMap &map, const Slice &s) {
  return {{"site", s.site},
          {"name", s.name},
          {"lane", lane_name(map, s.lane)},
          {"payload", s.payload},
          {"begin_cycles", s.begin_cycles},
          {"end_cycles", s.end_cycles},
          {"begin_ns", s.begin_ns},
          {"end_ns", s.end_ns},
          {"incomplete", s.incomplete}};
}

json row_json(const DecodeMap &map, const Row &r) {
  json slices = json::array(), instants = json::array();
  for (const Slice &s : r.slices)
    slices.push_back(slice_json(map, s));
  for (const Instant &i : r.instants)
    instants.push_back({{"site", i.site},
                        {"name", i.name},
                        {"lane", lane_name(map, i.lane)},
                        {"payload", i.payload},
                        {"cycles", i.cycles},
                        {"ns", i.ns}});
  json row = {{"index", r.index},
              {"cta", r.cta},
              {"group", r.group < map.groups.size() ? map.groups[r.group].name : "?"},
              {"smid", r.smid},
              {"started", r.started},
              {"closed", r.closed},
              {"never_ended", r.never_ended()},
              {"start_ns", r.start_ns},
              {"end_ns", r.end_ns},
              {"start_cycles", r.start_cycles},
              {"end_cycles", r.end_cycles},
              {"ghz", r.ghz},
              {"ghz_measured", r.ghz_measured},
              {"ghz_source", rate_source_name(r.ghz_source)},
              {"attempted", r.attempted},
              {"stored", r.stored},
              {"dropped", r.dropped},
              {"unmatched_ends", r.unmatched_ends},
              {"unknown_sites", r.unknown_sites},
              {"slices", slices},
              {"instants", instants}};
  if (r.sliced()) // docs/FORMAT.md, "Rows of a CTA"
    row.update({{"row_in_cta", r.row_in_cta},
                {"slice", r.slice},
                {"first_thread", r.first_thread ? json(*r.first_thread) : json(nullptr)},
                {"label", r.label}});
  return row;
}

} // namespace

std::string trace_summary_json(const DecodeMap &map, const Trace &t) {
  json rows = json::array(), flows = json::array();
  for (const Row &r : t.rows)
    if (r.started || r.stored) // rows of groups that never ran are noise in a summary
      rows.push_back(row_json(map, r));
  for (const Flow &f : t.flows)
    flows.push_back({{"src", {f.src.row, f.src.slice}},
                     {"dst", {f.dst.row, f.dst.slice}},
                     {"at_cycles", f.at_cycles},
                     {"at_ns", f.at_ns}});
  const BufferHeader &h = t.header;
  json doc = {{"format_version", kFormatVersion},
              {"kernel", t.kernel},
              {"source", map.source},
              {"clock", h.clock == Clock::clock64 ? "clock64" : "globaltimer"},
              {"grid", {h.grid[0], h.grid[1], h.grid[2]}},
              {"block", {h.block[0], h.block[1], h.block[2]}},
              {"max_events", h.max_events},
              {"num_rows", h.num_rows},
              {"device_clock_khz", h.device_clock_khz},
              {"origin_ns", t.origin_ns}, // globaltimer ns; slice/instant/flow *_ns count from it
              {"rows", rows},
              {"flows", flows},
              {"backward_flows", t.backward_flows},
              {"unpaired_flows", t.unpaired_flows},
              {"problems", t.problems},
              {"completeness", completeness_json(completeness_of(t))}};
  if (map.any_sliced())
    doc["slice_groups"] = slice_groups_json(summarize_slices(map, {&t}));
  return doc.dump(1) + "\n";
}

} // namespace cutrace
