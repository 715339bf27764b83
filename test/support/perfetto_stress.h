// A launch built to stress the Perfetto exports' layout rules (runtime_perfetto_rules_test.cpp,
// runtime_pftrace_rules_test.cpp): nested slices sharing a begin, a flow landing inside a nested
// slice, ends that coincide.
#ifndef CUTRACE_TEST_SUPPORT_PERFETTO_STRESS_H
#define CUTRACE_TEST_SUPPORT_PERFETTO_STRESS_H

#include "buffer_builder.h"

#include <cutrace/decode.h>
#include <cutrace/export.h>

#include <string>

namespace cutrace::test_support {

// Sites: 0 load (range, producer, main), 1 issue (range, producer, main; nested in load, same
// begin), 2 compute (range, consumer, main), 3 mma (range, consumer, main; nested in compute,
// holds the point where load's hand-off lands), 4 tick (record, consumer). TRACE_DAG load ->
// compute, by payload.
inline const char *kStressMap = R"({"format_version":1,"kernel":"stress","source":"stress.cu",
 "max_events":64,"clock":"clock64",
 "groups":[{"index":0,"name":"producer","lead":"0"},{"index":1,"name":"consumer","lead":"32"}],
 "lanes":["main"],
 "sites":[{"id":0,"kind":"range","name":"load","lane":0,"group":0,"loc":"stress.cu:5:3"},
          {"id":1,"kind":"range","name":"issue","lane":0,"group":0,"loc":"stress.cu:6:5"},
          {"id":2,"kind":"range","name":"compute","lane":0,"group":1,"loc":"stress.cu:9:3"},
          {"id":3,"kind":"range","name":"mma","lane":0,"group":1,"loc":"stress.cu:10:5"},
          {"id":4,"kind":"record","name":"tick","lane":0,"group":1,"loc":"stress.cu:11:5"}],
 "flows":[{"src":"load","dst":"compute"}]})";

// 2 CTAs at 1.7 GHz (rates with fractions, so ns are not integers), 3 k-tiles per CTA. Tile k
// (cycles from the CTA's start, t = 3000k): load [t+100, t+1100] with issue [t+100, t+400]
// nested from the same cycle; compute [t+600, t+2500] with mma [t+900, t+2400] nested around
// load's end (t+1100), a tick at t+700; tile 2's compute ends on the cycle its load ends.
inline Trace stress_trace(const DecodeMap &map) {
  constexpr auto B = RecordKind::begin, E = RecordKind::end, I = RecordKind::instant;
  BufferBuilder b(2, 2, 64);
  for (uint32_t c = 0; c < 2; ++c) {
    const uint64_t ns0 = 2'000'000 + 777 * c, cyc0 = 90'000 + 17'000 * c;
    for (uint32_t g = 0; g < 2; ++g)
      b.start(c, g, ns0, cyc0, 3 + c);
    for (int32_t k = 0; k < 3; ++k) {
      const uint64_t t = cyc0 + 3000 * uint64_t(k);
      const uint64_t load_end = k == 2 ? t + 2500 : t + 1100;
      b.event(c, 0, B, 0, k, t + 100);
      b.event(c, 0, B, 1, k, t + 100);
      b.event(c, 0, E, 1, k, t + 400);
      b.event(c, 0, E, 0, k, load_end);
      b.event(c, 1, B, 2, k, t + 600);
      b.event(c, 1, I, 4, k, t + 700);
      b.event(c, 1, B, 3, k, t + 900);
      b.event(c, 1, E, 3, k, t + 2400);
      b.event(c, 1, E, 2, k, t + 2500);
    }
    for (uint32_t g = 0; g < 2; ++g)
      b.end(c, g, ns0 + 10'000, cyc0 + 17'000);
  }
  return decode(map, b.bytes.data(), b.bytes.size());
}

// A hand-off whose ends meet on one ns in two rows: "wait" (group 0, the lower row) ends on the
// cycle a zero-length "signal" (group 1) begins and ends; TRACE_DAG signal -> wait. Both rows
// start on one (ns, cycle) pair, so both ends are the same ns after rounding, and the
// destination's row comes first in the launch's row order.
inline const char *kTieMap = R"({"format_version":1,"kernel":"tie","source":"tie.cu",
 "max_events":8,"clock":"clock64",
 "groups":[{"index":0,"name":"waiter","lead":"0"},{"index":1,"name":"signaller","lead":"32"}],
 "lanes":["main"],
 "sites":[{"id":0,"kind":"range","name":"wait","lane":0,"group":0,"loc":"tie.cu:5:3"},
          {"id":1,"kind":"range","name":"signal","lane":0,"group":1,"loc":"tie.cu:9:3"}],
 "flows":[{"src":"signal","dst":"wait"}]})";

inline Trace tie_trace(const DecodeMap &map) {
  constexpr auto B = RecordKind::begin, E = RecordKind::end;
  BufferBuilder b(1, 2, 8);
  for (uint32_t g = 0; g < 2; ++g)
    b.start(0, g, 1'000'000, 50'000, 3);
  b.event(0, 0, B, 0, 0, 50'100);
  b.event(0, 0, E, 0, 0, 51'000);
  b.event(0, 1, B, 1, 0, 51'000);
  b.event(0, 1, E, 1, 0, 51'000);
  for (uint32_t g = 0; g < 2; ++g)
    b.end(0, g, 1'002'000, 52'000);
  return decode(map, b.bytes.data(), b.bytes.size());
}

/// The name both Perfetto exports give a decoded slice: an incomplete one says so in its name,
/// since the length drawn is not how long it ran.
inline std::string exported_name(const Slice &s) {
  return s.incomplete ? s.name + kIncompleteSuffix : s.name;
}

} // namespace cutrace::test_support

#endif
