// TRACE_DAG arrows: per CTA, the i-th `src` slice (in time order) points to the i-th `dst` slice.
// An arrow is drawn from the end of src to the start of dst, so a pair where dst starts before
// src ends would point backwards in time: it is skipped and counted instead.
#include <cutrace/decode.h>

#include <algorithm>
#include <tuple>

namespace cutrace {

namespace {

std::vector<SliceRef> slices_named(const Trace &t, size_t first_row, size_t last_row,
                                   const std::string &name) {
  std::vector<SliceRef> refs;
  for (size_t r = first_row; r < last_row; ++r)
    for (size_t s = 0; s < t.rows[r].slices.size(); ++s)
      if (t.rows[r].slices[s].name == name)
        refs.push_back({uint32_t(r), uint32_t(s)});
  auto key = [&t](const SliceRef &ref) {
    const Slice &s = t.rows[ref.row].slices[ref.slice];
    return std::make_tuple(s.begin_cycles, s.end_cycles, ref.row, ref.slice);
  };
  std::sort(refs.begin(), refs.end(),
            [&](const SliceRef &a, const SliceRef &b) { return key(a) < key(b); });
  return refs;
}

} // namespace

void match_flows(const DecodeMap &map, Trace &t) {
  const size_t per_cta = std::max<uint32_t>(t.header.num_groups, 1);
  for (const FlowDecl &decl : map.flows) {
    for (size_t first = 0; first < t.rows.size(); first += per_cta) {
      const size_t last = std::min(t.rows.size(), first + per_cta);
      const std::vector<SliceRef> src = slices_named(t, first, last, decl.src);
      const std::vector<SliceRef> dst = slices_named(t, first, last, decl.dst);
      const size_t pairs = std::min(src.size(), dst.size());
      t.unpaired_flows += uint32_t(std::max(src.size(), dst.size()) - pairs);
      for (size_t i = 0; i < pairs; ++i) {
        const Slice &a = t.rows[src[i].row].slices[src[i].slice];
        const Slice &b = t.rows[dst[i].row].slices[dst[i].slice];
        if (b.begin_cycles < a.end_cycles) {
          ++t.backward_flows;
          continue;
        }
        t.flows.push_back({src[i], dst[i]});
      }
    }
  }
}

} // namespace cutrace
