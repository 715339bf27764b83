// One launch in Perfetto's native trace format (docs/viewer.md, "Perfetto"): a top track named by
// the kernel holds one slice over the launch carrying its completeness; under it a track per
// CTA ("CTA (x,y,z) on SM s") and under that a track per row, lane and nesting level
// ("consumer[w3] / main", its gaps added), as the JSON export lays them out.
#include "pftrace_rows.h"
#include "pftrace_writer.h"

#include <cutrace/completeness.h>
#include <cutrace/export.h>

#include <algorithm>
#include <map>

namespace cutrace {

namespace pftrace {

void completeness_args(EventArgs &args, const Completeness &c) {
  args.boolean("complete", c.complete()).text("completeness", completeness_line(c));
  if (c.dropped_events)
    args.uinteger("dropped_events", c.dropped_events)
        .uinteger("rows_overflowed", c.rows_overflowed);
  if (c.incomplete_slices)
    args.uinteger("incomplete_slices", c.incomplete_slices);
  if (c.rows_never_ended)
    args.uinteger("rows_never_ended", c.rows_never_ended);
  if (c.decode_problems)
    args.uinteger("decode_problems", c.decode_problems);
  if (c.ctas_left_out)
    args.uinteger("ctas_left_out", c.ctas_left_out).uinteger("cta_stride", c.cta_stride);
}

} // namespace pftrace

bool write_perfetto_trace(const DecodeMap &map, const Trace &t, const ByteSink &sink,
                          PftraceEncoding encoding) {
  using namespace pftrace;
  TraceWriter out(sink, encoding);
  LaunchRows rows(map, t, 0, 1, std::nullopt);
  int64_t begin = 0, end = 0;
  if (!rows.rows().empty()) {
    begin = INT64_MAX, end = INT64_MIN;
    for (const RowSpan &r : rows.rows())
      begin = std::min(begin, r.begin), end = std::max(end, r.end);
  }
  const Completeness gaps = completeness_of(t);
  const uint64_t launch = out.track(t.kernel, 0, std::nullopt, /*ordered_children=*/true);
  EventArgs &args = out.args();
  args.uinteger("origin_globaltimer_ns", t.origin_ns);
  completeness_args(args, gaps);
  if (!t.problems.empty())
    args.text("first_problem", t.problems.front());
  out.begin(launch, begin, gaps.complete() ? t.kernel : t.kernel + " [INCOMPLETE]", true);

  std::map<uint32_t, uint64_t> cta_tracks;
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> row_tracks; // (row, k)
  std::map<uint32_t, int32_t> next_rank;                        // per CTA
  const std::vector<RowSpan> &spans = rows.rows();
  std::map<uint32_t, const RowSpan *> span_of;
  for (const RowSpan &s : spans)
    span_of[s.row] = &s;
  // Tracks in CTA, row, lane and level order, described before the first event.
  for (const RowSpan &s : spans) {
    const Row &row = t.rows[s.row];
    auto cta = cta_tracks.find(row.cta);
    if (cta == cta_tracks.end()) {
      uint32_t smid = row.smid;
      for (const Row &r : t.rows)
        if (r.cta == row.cta && r.started) {
          smid = r.smid;
          break;
        }
      cta =
          cta_tracks
              .emplace(row.cta,
                       out.track(perfetto::cta_label(t, row.cta) + " on SM " + std::to_string(smid),
                                 launch, int32_t(std::min<uint32_t>(row.cta, INT32_MAX)), true))
              .first;
    }
    for (uint32_t k = 0; k < s.tracks.size(); ++k) {
      const perfetto::RowTrack &key = s.tracks[k];
      row_tracks[{s.row, k}] =
          out.track(perfetto::track_name(map, row, key.lane, key.level) + row_gaps(row),
                    cta->second, next_rank[row.cta]++);
    }
  }
  rows.write(out, [&](uint32_t row, uint32_t k) { return row_tracks.at({row, k}); });
  out.end(launch, end); // after the rows: their events in time order (pftrace_writer.h)
  return out.finish();
}

} // namespace cutrace
