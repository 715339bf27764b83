// What every export needs: CTA coordinates, the launch's time origin, row spans, one-CTA views.
#include <cutrace/export.h>

#include <algorithm>
#include <cfloat>

namespace cutrace {

std::array<uint32_t, 3> cta_coords(const BufferHeader &h, uint32_t cta) {
  const uint32_t gx = std::max<uint32_t>(h.grid[0], 1), gy = std::max<uint32_t>(h.grid[1], 1);
  return {cta % gx, (cta / gx) % gy, cta / (gx * gy)};
}

double trace_origin_ns(const Trace &t) {
  double origin = DBL_MAX;
  for (const Row &r : t.rows) {
    if (r.started)
      origin = std::min(origin, double(r.start_ns));
    for (const Slice &s : r.slices)
      origin = std::min(origin, s.begin_ns);
    for (const Instant &i : r.instants)
      origin = std::min(origin, i.ns);
  }
  return origin == DBL_MAX ? 0 : origin;
}

double row_end_ns(const Row &r) {
  if (r.closed)
    return double(r.end_ns);
  double end = double(r.start_ns);
  for (const Slice &s : r.slices)
    end = std::max(end, s.end_ns);
  for (const Instant &i : r.instants)
    end = std::max(end, i.ns);
  return end;
}

Trace restrict_to_cta(const Trace &t, uint32_t cta) {
  Trace out;
  out.kernel = t.kernel;
  out.header = t.header;
  out.backward_flows = t.backward_flows;
  out.unpaired_flows = t.unpaired_flows;
  out.problems = t.problems;
  std::vector<int64_t> new_index(t.rows.size(), -1);
  for (size_t r = 0; r < t.rows.size(); ++r)
    if (t.rows[r].cta == cta) {
      new_index[r] = int64_t(out.rows.size());
      out.rows.push_back(t.rows[r]);
    }
  for (const Flow &f : t.flows)
    if (new_index[f.src.row] >= 0 && new_index[f.dst.row] >= 0)
      out.flows.push_back({{uint32_t(new_index[f.src.row]), f.src.slice},
                           {uint32_t(new_index[f.dst.row]), f.dst.slice}});
  return out;
}

} // namespace cutrace
