// Synthetic runs for the run exporters and trace-view on runs: a small two-group kernel whose
// launches are placed at chosen globaltimer times, as decoded launches (RunLaunch) or as the
// records of a run file (LaunchRecord).
#ifndef CUTRACE_TEST_SUPPORT_RUN_BUILDER_H
#define CUTRACE_TEST_SUPPORT_RUN_BUILDER_H

#include "buffer_builder.h"

#include <cutrace/run.h>
#include <cutrace/run_trace.h>

#include <optional>
#include <string>
#include <vector>

namespace cutrace::test_support {

// Sites: 0 load (range, group block, lane main), 1 compute (range, group math, lane main), 2 tick
// (record, group math, lane main); TRACE_DAG load -> compute.
inline std::string step_map_json(const std::string &kernel = "step") {
  return R"({"format_version":1,"kernel":")" + kernel +
         R"(","source":"step.cu","max_events":16,"clock":"clock64",
 "groups":[{"index":0,"name":"block","lead":"0"},{"index":1,"name":"math","lead":"32"}],
 "lanes":["main"],
 "sites":[{"id":0,"kind":"range","name":"load","lane":0,"group":0,"loc":"step.cu:5:3"},
          {"id":1,"kind":"range","name":"compute","lane":0,"group":1,"loc":"step.cu:9:3"},
          {"id":2,"kind":"record","name":"tick","lane":0,"group":1,"loc":"step.cu:11:5"}],
 "flows":[{"src":"load","dst":"compute"}]})";
}

inline DecodeMap step_map(const std::string &kernel = "step") {
  return *parse_decode_map(step_map_json(kernel));
}

// Row length of every CTA of a step launch, ns (1 GHz: cycles = ns); CTA c starts 100c later.
inline constexpr uint64_t kStepRowNs = 4000, kStepCtaStaggerNs = 100;

// A launch of `ctas` CTAs at 1 GHz whose first row starts at globaltimer `start_ns`. CTA c runs on
// SM c % 4, both its rows from start_ns + 100c for 4000 ns: load [100, 300] in group block,
// compute [400, 900] with tick at 500 in group math (ns since the row's start).
inline std::vector<uint8_t> step_buffer(uint32_t ctas, uint64_t start_ns) {
  BufferBuilder b(ctas, 2, 16);
  for (uint32_t c = 0; c < ctas; ++c) {
    const uint64_t ns0 = start_ns + kStepCtaStaggerNs * c, cyc0 = 1'000'000 + 10'000 * c;
    for (uint32_t g = 0; g < 2; ++g)
      b.start(c, g, ns0, cyc0, c % 4);
    b.event(c, 0, RecordKind::begin, 0, 0, cyc0 + 100);
    b.event(c, 0, RecordKind::end, 0, 0, cyc0 + 300);
    b.event(c, 1, RecordKind::begin, 1, int32_t(c), cyc0 + 400);
    b.event(c, 1, RecordKind::instant, 2, 0, cyc0 + 500);
    b.event(c, 1, RecordKind::end, 1, int32_t(c), cyc0 + 900);
    for (uint32_t g = 0; g < 2; ++g)
      b.end(c, g, ns0 + kStepRowNs, cyc0 + kStepRowNs);
  }
  return b.bytes;
}

// Launch extent (earliest row start to latest row end) of a step launch of `ctas` CTAs.
inline double step_extent_ns(uint32_t ctas) {
  return double(kStepCtaStaggerNs * (ctas - 1) + kStepRowNs);
}

// A decoded step launch placed at `begin_ns` on the run axis.
inline RunLaunch step_launch(const RunTrace &run, uint32_t map, uint32_t device, uint64_t stream,
                             uint64_t sequence, uint32_t ctas, double begin_ns,
                             std::optional<double> enqueue_ns = std::nullopt) {
  RunLaunch l;
  l.device = device;
  l.map = map;
  l.stream = stream;
  l.sequence = sequence;
  l.launch_index = uint32_t(sequence);
  l.grid[0] = ctas;
  l.block[0] = 64;
  const std::vector<uint8_t> buffer = step_buffer(ctas, 1'000'000'000 + sequence * 1'000'000);
  l.trace = decode(run.maps[map], buffer.data(), buffer.size());
  l.begin_ns = l.offset_ns = begin_ns;
  l.end_ns = begin_ns + step_extent_ns(ctas);
  l.enqueue_ns = enqueue_ns;
  return l;
}

// The record of a step launch as a run file holds it (compact layout).
inline LaunchRecord step_record(uint32_t map, uint32_t device, uint64_t stream, uint64_t sequence,
                                uint32_t ctas, uint64_t start_ns, uint64_t host_enqueue_ns = 0) {
  LaunchRecord r;
  r.map = map;
  r.device = device;
  r.stream = stream;
  r.launch_index = uint32_t(sequence);
  r.sequence = sequence;
  r.grid[0] = ctas;
  r.block[0] = 64;
  r.host_enqueue_ns = host_enqueue_ns;
  const std::vector<uint8_t> full = step_buffer(ctas, start_ns);
  r.buffer = compact_buffer(full.data(), full.size()); // as the capture session stores it
  return r;
}

} // namespace cutrace::test_support

#endif // CUTRACE_TEST_SUPPORT_RUN_BUILDER_H
