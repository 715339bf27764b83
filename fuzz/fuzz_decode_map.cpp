// libFuzzer target: the decode-map JSON reader (runtime/src/analysis/decode_map.cpp) on any bytes.
// A map it accepts is then used the way trace-view uses one: small synthetic buffers with one
// event per site, in both record layouts (16-byte records of versions 1/2, 8-byte records of
// version 3 with single-record ranges), are decoded with it and summarised, so what the reader
// lets through (group and lane indices, ids, flow names) must be safe for the decoder and the
// exporters.
#include "trace_checks.h"

#include "buffer_builder.h"
#include <cutrace/ctrace.h>
#include <cutrace/export.h>

#include <algorithm>
#include <cstdint>

using namespace cutrace;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  Expected<DecodeMap> map =
      parse_decode_map(std::string(reinterpret_cast<const char *>(Data), Size));
  if (!map)
    return 0;
  for (const Site &s : map->sites)
    if (map->site(s.id) == nullptr)
      fuzz::violated("fuzz_decode_map", "every site of the map can be looked up by its id");

  // One CTA; events for at most 64 sites, spread over at most 4 groups.
  const size_t sites = std::min<size_t>(map->sites.size(), 64);
  const uint32_t groups = uint32_t(std::clamp<size_t>(map->groups.size(), 1, 4));
  test_support::BufferBuilder buffer(1, groups, uint32_t(2 * sites + 1), map->clock);
  // Version 3: a scoped range is one record (plus its payload), every other 8-byte record alike.
  test_support::Buffer8Builder buffer8(1, groups, uint32_t(2 * sites + 1), map->clock);
  for (uint32_t g = 0; g < groups; ++g) {
    buffer.start(0, g, 1000000, 5000);
    buffer8.start(0, g, 1000000, 5000);
  }
  uint64_t ts = 5000;
  for (size_t i = 0; i < sites; ++i) {
    const Site &s = map->sites[i];
    const uint32_t g = s.group % groups;
    if (s.kind == SiteKind::record) {
      buffer.event(0, g, RecordKind::instant, s.id, int32_t(i), ts += 10);
      buffer8.event(0, g, RecordKind::instant, s.id, int32_t(i), ts);
    } else {
      buffer.event(0, g, RecordKind::begin, s.id, int32_t(i), ts += 10);
      buffer.event(0, g, RecordKind::end, s.id, int32_t(i), ts += 10);
      if (s.kind == SiteKind::range) {
        buffer8.range(0, g, s.id, int32_t(i), ts - 10, ts);
      } else {
        buffer8.event(0, g, RecordKind::begin, s.id, int32_t(i), ts - 10);
        buffer8.event(0, g, RecordKind::end, s.id, 0, ts);
      }
    }
  }
  for (uint32_t g = 0; g < groups; ++g) {
    buffer.end(0, g, 1000000 + 100000, ts + 10);
    buffer8.end(0, g, 1000000 + 100000, ts + 10);
  }
  for (const std::vector<uint8_t> *bytes : {&buffer.bytes, &buffer8.bytes}) {
    const Trace trace = decode(*map, bytes->data(), bytes->size());
    fuzz::check_trace("fuzz_decode_map", trace);
    (void)format_summary(summarize(*map, trace));
    (void)trace_summary_json(*map, trace);
  }
  return 0;
}
