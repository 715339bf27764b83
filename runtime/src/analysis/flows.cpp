// TRACE_DAG arrows: per CTA, the i-th `src` slice (in time order) points to the i-th `dst` slice.
// The arrow goes from the end of src to max(dst begin, src end), a point inside dst: in real
// pipelines the consumer's range begins (and waits) before the producer's ends, and the arrow
// lands where the wait is released. Only a dst that ends before src ends would need a backward
// arrow: that pair is skipped and counted instead.
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
        if (b.end_cycles < a.end_cycles) {
          ++t.backward_flows;
          continue;
        }
        // Same CTA, same SM clock: decide on cycles, then clamp ns into dst (rows of one CTA
        // may carry slightly different rates).
        Flow f{src[i], dst[i], b.begin_cycles, b.begin_ns};
        if (a.end_cycles > b.begin_cycles)
          f.at_cycles = a.end_cycles, f.at_ns = std::clamp(a.end_ns, b.begin_ns, b.end_ns);
        t.flows.push_back(f);
      }
    }
  }
}

} // namespace cutrace
