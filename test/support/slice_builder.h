// Synthetic launches with TRACE_GROUPS rows (docs/FORMAT.md, "Rows of a CTA"): a per-warp
// normalisation kernel (one row per warp of 1024-thread CTAs, plus a per-CTA row) and a
// warp-specialized pipeline (a producer row and one row per consumer warpgroup), laid out as
// device.h writes them. For the slice tests, the export tests and the browser check's generator.
#ifndef CUTRACE_TEST_SUPPORT_SLICE_BUILDER_H
#define CUTRACE_TEST_SUPPORT_SLICE_BUILDER_H

#include "buffer_builder.h"

#include <string>

namespace cutrace::test_support {

// Sites: 0 setup (range, block), 1 row (range, warp, payload: the matrix row), 2 reduce (range,
// warp, nested in row), 3 done (record, warp). Group 1 is TRACE_GROUPS("warp", 32).
inline std::string warp_map_json(uint32_t max_events, uint32_t slice_threads = 32,
                                 uint32_t first_thread = 0) {
  return R"({"format_version":1,"kernel":"rownorm","source":"rownorm.cu","max_events":)" +
         std::to_string(max_events) + R"(,"clock":"clock64",
 "groups":[{"index":0,"name":"block","lead":"0"},
           {"index":1,"name":"warp","lead":"slice","slice_threads":)" +
         std::to_string(slice_threads) + R"(,"first_thread":)" + std::to_string(first_thread) +
         R"(}],
 "lanes":["main"],
 "sites":[{"id":0,"kind":"range","name":"setup","lane":0,"group":0,"loc":"rownorm.cu:10:3"},
          {"id":1,"kind":"range","name":"row","lane":0,"group":1,"loc":"rownorm.cu:14:5"},
          {"id":2,"kind":"range","name":"reduce","lane":0,"group":1,"loc":"rownorm.cu:17:7"},
          {"id":3,"kind":"record","name":"done","lane":0,"group":1,"loc":"rownorm.cu:21:5"}],
 "flows":[]})";
}

inline DecodeMap warp_map(uint32_t max_events, uint32_t slice_threads = 32,
                          uint32_t first_thread = 0) {
  return *parse_decode_map(warp_map_json(max_events, slice_threads, first_thread));
}

// Rows a warp-per-row launch gives warp w: 1 + w % 4 matrix rows, 5 records each (row, reduce
// nested, done): warps differ, so per-slice statistics and imbalance are visible.
inline uint32_t rows_of_warp(uint32_t w) { return 1 + w % 4; }

// `ctas` CTAs of 1024 threads on SM c % 132 at 1 GHz (cycles = ns): row 0 (block) holds setup
// [10, 60]; row 1 + w (warp w) holds, per matrix row k, row [100 + 300k + 7w, +250] with reduce
// [+50, +200] inside and done at +240 (ns since the CTA's start; a wave of 132 CTAs starts 3000
// ns after the previous one); every row ends at 2500.
inline BufferBuilder warp_buffer(uint32_t ctas, uint32_t max_events = 64) {
  const uint32_t warps = 32, rows = 1 + warps;
  BufferBuilder b(ctas, rows, max_events, Clock::clock64, 1024);
  constexpr auto B = RecordKind::begin, E = RecordKind::end, I = RecordKind::instant;
  for (uint32_t c = 0; c < ctas; ++c) {
    const uint64_t ns0 = 1'000'000 + (c / 132) * 3000, cyc0 = 5'000'000 + ns0;
    const uint32_t sm = c % 132;
    b.start(c, 0, ns0, cyc0, sm);
    b.event(c, 0, B, 0, 0, cyc0 + 10);
    b.event(c, 0, E, 0, 0, cyc0 + 60);
    for (uint32_t w = 0; w < warps; ++w) {
      b.start(c, 1 + w, ns0, cyc0, sm);
      for (uint32_t k = 0; k < rows_of_warp(w); ++k) {
        const uint64_t at = cyc0 + 100 + 300 * k + 7 * w;
        const int32_t row = int32_t(c * 128 + w * 4 + k);
        b.event(c, 1 + w, B, 1, row, at);
        b.event(c, 1 + w, B, 2, row, at + 50);
        b.event(c, 1 + w, E, 2, row, at + 200);
        b.event(c, 1 + w, I, 3, row, at + 240);
        b.event(c, 1 + w, E, 1, row, at + 250);
      }
    }
    for (uint32_t r = 0; r < rows; ++r)
      b.end(c, r, ns0 + 2500, cyc0 + 2500);
  }
  return b;
}

} // namespace cutrace::test_support

#endif
