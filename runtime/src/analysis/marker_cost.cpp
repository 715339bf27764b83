// The marker probe's buffer -> what each kind of marker costs (docs/FORMAT.md, "Marker cost").
#include <cutrace/decode.h>
#include <cutrace/marker_probe_map.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace cutrace {

Expected<MarkerCost> marker_cost_from_probe(const uint8_t *buffer, size_t size) {
  using E = Expected<MarkerCost>;
  Expected<DecodeMap> map = parse_decode_map(detail::kMarkerProbeMapJson);
  if (!map)
    return E::failure("the marker probe's map: " + map.error);
  const Trace t = decode(*map, buffer, size);
  if (!t.ok())
    return E::failure("the marker probe's buffer: " + t.problems.front());
  std::map<std::string, std::vector<uint64_t>> lengths;
  for (const Row &row : t.rows)
    for (const Slice &s : row.slices)
      if (!s.incomplete)
        lengths[s.name].push_back(s.end_cycles - s.begin_cycles);
  auto median = [&](const char *name) -> std::optional<double> {
    std::vector<uint64_t> &v = lengths[name];
    if (v.size() < size_t(detail::kMarkerProbeReps / 2))
      return std::nullopt;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return double(v[v.size() / 2]);
  };
  const std::optional<double> empty = median("empty"), around = median("around_instant"),
                              outer = median("outer"), inner = median("inner"),
                              explicit_pair = median("explicit");
  if (!empty || !around || !outer || !inner || !explicit_pair)
    return E::failure("the marker probe's buffer holds too few ranges");
  MarkerCost cost;
  cost.range_begin = *empty;
  cost.event = std::min(*around - *empty, *explicit_pair);
  // Amid code that waits on its own results an instant's instructions overlap that wait and cost
  // less: the lower figure is taken, since taking out too little leaves a range a few cycles
  // long while taking out too much cuts into its code (probes recorded before the chain shapes
  // existed have none).
  const std::optional<double> chain = median("chain");
  const std::optional<double> chain_around = median("chain_around_instant");
  if (chain && chain_around)
    cost.event = std::min(cost.event, *chain_around - *chain);
  const std::optional<double> long_chain = median("long_chain");
  const std::optional<double> around_marks = median("chain_around_marks");
  if (long_chain && around_marks)
    cost.event = std::min(cost.event, (*around_marks - *long_chain) / detail::kMarkerProbeParts);
  cost.event = std::max(0.0, cost.event);
  // A range's end is measured where real ones sit, between parts of code that stores its result
  // (a pipeline's stages inside its k-tile): the chain cut in parts, each in its own range,
  // against the whole chain (the two ranges' own begins cancel). There it costs a little more
  // than after an empty range (on an H100, 37 against 36), so that figure is taken as it is;
  // probes recorded before the shape existed give the figure after an empty range.
  const std::optional<double> around_ranges = median("chain_around_ranges");
  cost.range_end =
      long_chain && around_ranges
          ? (*around_ranges - *long_chain) / detail::kMarkerProbeParts - cost.range_begin
          : *outer - *empty - *inner;
  cost.range_end = std::max(0.0, cost.range_end);
  return E{cost, {}};
}

std::string describe_marker_cost(const MarkerCost &cost) {
  auto cycles = [](double v) { return std::to_string(int64_t(std::llround(v))); };
  return "marker cost " + cycles(cost.range_begin) + " cycles per range begin, " +
         cycles(cost.range_end) + " per range end, " + cycles(cost.event) + " per event";
}

} // namespace cutrace
