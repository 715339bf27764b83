// TRACE_DAG arrows (docs/annotations.md, "TRACE_DAG"): per CTA, across all its rows, each `src`
// slice points to one `dst` slice. When both ends carry payloads (a tile index), a src pairs with
// the dst of the same payload, the k-th src of a payload with the k-th dst of it in time order;
// otherwise the i-th src in time order pairs with the i-th dst. The arrow goes from the end of
// src to max(dst begin, src end), a point inside dst: in real pipelines the consumer's range
// begins (and waits) before the producer's ends, and the arrow lands where the wait is released.
// Only a dst that ends before src ends would need a backward arrow: that pair is skipped and
// counted instead.
#include <cutrace/decode.h>

#include <algorithm>
#include <map>
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

// A range written without a payload records 0 in every event: an end carries payloads when its
// slices anywhere in the launch do not all hold one value.
bool carries_payloads(const Trace &t, const std::string &name) {
  std::optional<int32_t> seen;
  for (const Row &row : t.rows)
    for (const Slice &s : row.slices)
      if (s.name == name) {
        if (seen && *seen != s.payload)
          return true;
        seen = s.payload;
      }
  return false;
}

// Pairs in src time order: by payload (the k-th src of a payload with the k-th dst of it), or
// the i-th with the i-th. Counts the slices left without a partner.
std::vector<std::pair<SliceRef, SliceRef>> pair_up(const Trace &t, const std::vector<SliceRef> &src,
                                                   const std::vector<SliceRef> &dst,
                                                   bool by_payload, uint32_t &unpaired) {
  auto payload = [&](const SliceRef &r) {
    return by_payload ? t.rows[r.row].slices[r.slice].payload : 0;
  };
  std::map<int32_t, std::vector<SliceRef>> dst_of; // per payload, in time order
  for (const SliceRef &d : dst)
    dst_of[payload(d)].push_back(d);
  std::map<int32_t, size_t> taken;
  std::vector<std::pair<SliceRef, SliceRef>> pairs;
  for (const SliceRef &s : src) {
    const int32_t p = payload(s);
    auto it = dst_of.find(p);
    size_t &k = taken[p];
    if (it != dst_of.end() && k < it->second.size())
      pairs.emplace_back(s, it->second[k]);
    ++k;
  }
  for (const auto &[p, k] : taken) {
    auto it = dst_of.find(p);
    const size_t dsts = it == dst_of.end() ? 0 : it->second.size();
    unpaired += uint32_t(std::max(k, dsts) - std::min(k, dsts));
  }
  for (const auto &[p, ds] : dst_of)
    if (!taken.count(p))
      unpaired += uint32_t(ds.size());
  return pairs;
}

} // namespace

void match_flows(const DecodeMap &map, Trace &t) {
  for (const FlowDecl &decl : map.flows) {
    const bool by_payload = carries_payloads(t, decl.src) && carries_payloads(t, decl.dst);
    for (size_t first = 0; first < t.rows.size();) {
      size_t last = first + 1; // the CTA's rows are consecutive
      while (last < t.rows.size() && t.rows[last].cta == t.rows[first].cta)
        ++last;
      const std::vector<SliceRef> src = slices_named(t, first, last, decl.src);
      const std::vector<SliceRef> dst = slices_named(t, first, last, decl.dst);
      first = last;
      for (const auto &[from, to] : pair_up(t, src, dst, by_payload, t.unpaired_flows)) {
        const Slice &a = t.rows[from.row].slices[from.slice];
        const Slice &b = t.rows[to.row].slices[to.slice];
        if (b.end_cycles < a.end_cycles) {
          ++t.backward_flows;
          continue;
        }
        // Same CTA, same SM clock: decide on cycles, then clamp ns into dst (rows of one CTA
        // may carry slightly different rates).
        Flow f{from, to, b.begin_cycles, b.begin_ns};
        if (a.end_cycles > b.begin_cycles)
          f.at_cycles = a.end_cycles, f.at_ns = std::clamp(a.end_ns, b.begin_ns, b.end_ns);
        t.flows.push_back(f);
      }
    }
  }
}

} // namespace cutrace
