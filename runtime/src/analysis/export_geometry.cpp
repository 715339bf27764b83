// What every export needs: CTA coordinates, row spans on the global axis, one-CTA views.
#include <cutrace/export.h>

#include <algorithm>

namespace cutrace {

std::array<uint32_t, 3> cta_coords(const BufferHeader &h, uint32_t cta) {
  const uint32_t gx = std::max<uint32_t>(h.grid[0], 1), gy = std::max<uint32_t>(h.grid[1], 1);
  return {cta % gx, (cta / gx) % gy, cta / (gx * gy)};
}

double row_start_ns(const Trace &t, const Row &r) {
  return double(int64_t(r.start_ns - t.origin_ns));
}

double row_end_ns(const Trace &t, const Row &r) {
  if (r.closed)
    return double(int64_t(r.end_ns - t.origin_ns));
  double end = row_start_ns(t, r);
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
  out.origin_ns = t.origin_ns;
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
                           {uint32_t(new_index[f.dst.row]), f.dst.slice},
                           f.at_cycles,
                           f.at_ns});
  return out;
}

} // namespace cutrace
