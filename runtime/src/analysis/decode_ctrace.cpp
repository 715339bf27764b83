// Decoding a `.ctrace`: its map, its buffer, and the container's geometry checked against the
// buffer header (docs/FORMAT.md, ".ctrace container").
#include <cutrace/ctrace.h>

namespace cutrace {

Trace decode_ctrace(const Ctrace &c, const DecodeMap &map, const DecodeOptions &options) {
  Trace t = decode(map, c.buffer.data(), c.buffer.size(), options);
  for (int i = 0; i < 3; ++i)
    if (c.grid[i] != t.header.grid[i] || c.block[i] != t.header.block[i]) {
      t.problems.push_back(".ctrace geometry disagrees with the buffer header");
      break;
    }
  return t;
}

Expected<Trace> decode_ctrace(const Ctrace &c, const DecodeOptions &options) {
  Expected<DecodeMap> map = parse_decode_map(c.map_json);
  if (!map)
    return Expected<Trace>::failure(map.error);
  return Expected<Trace>{decode_ctrace(c, *map, options), {}};
}

} // namespace cutrace
