// Synthetic .ctrace files for the viewer checks, laid out exactly as device.h writes them.
//   gen_trace demo OUT.ctrace [--evil]     8 CTAs on 4 SMs, producer/consumer groups, nested
//                                          ranges, instants, flows, an overflowing row, a row
//                                          that never ended; --evil puts HTML/script in names
//   gen_trace bulk OUT.ctrace [--events N] [--ctas C] [--groups G]
//                                          N records in all (default 1048576), spread over C
//                                          CTAs (64) x G groups (2)
//   gen_trace warps OUT.ctrace [--ctas C]  C CTAs (264) of 1024 threads with TRACE_GROUPS("warp",
//                                          32): a per-CTA row and 32 warp rows per CTA
//                                          (test/support/slice_builder.h)
//   gen_trace ctas OUT.ctrace [--ctas C]   C CTAs (10000) in a 100-wide grid (x,y), one row each:
//                                          CTA c holds 1 + c % 7 "work" slices (payload k) and
//                                          c % 3 "tick" instants, so neighbours differ
// Deterministic: the same arguments give the same bytes.
#include "../support/buffer_builder.h"
#include "../support/slice_builder.h"

#include <cutrace/ctrace.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using cutrace::BufferHeader;
using cutrace::RecordKind;

// 128 threads per CTA, as the demo kernels would launch.
class Buffer : public cutrace::test_support::BufferBuilder {
public:
  Buffer(uint32_t ctas, uint32_t groups, uint32_t max_events)
      : BufferBuilder(ctas, groups, max_events, cutrace::Clock::clock64, 128) {}
  void start(uint32_t cta, uint32_t group, uint32_t smid, uint64_t ns, uint64_t cycles) {
    BufferBuilder::start(cta, group, ns, cycles, smid);
  }
};

struct Lcg { // small deterministic jitter
  uint64_t s = 12345;
  uint32_t next(uint32_t n) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return uint32_t(s >> 33) % n;
  }
};

constexpr auto B = RecordKind::begin, E = RecordKind::end, I = RecordKind::instant;
constexpr double kGhz = 1.98;
constexpr uint64_t kBaseNs = 3'600'000'000'000ull; // an hour of %globaltimer

std::string demo_map(bool evil) {
  const std::string epi = evil ? R"(</script><script>window.__pwned=1</script><b>epi)" : "epi";
  const std::string lane = evil ? R"(<img src=x onerror=\"window.__pwned=2\">)" : "tma";
  const std::string kernel = evil ? "gemm</title><script>window.__pwned=3</script>" : "gemm";
  return R"({"format_version":1,"kernel":")" + kernel +
         R"(","source":"examples/gemm.cu","max_events":256,"clock":"clock64",
 "groups":[{"index":0,"name":"block","lead":"0"},{"index":1,"name":"producer","lead":"32"},
           {"index":2,"name":"consumer","lead":"64"}],
 "lanes":["main","mma",")" +
         lane + R"("],
 "sites":[{"id":0,"kind":"range","name":"setup","lane":0,"group":0,"loc":"examples/gemm.cu:21:3"},
  {"id":1,"kind":"record","name":"spin","lane":0,"group":0,"loc":"examples/gemm.cu:25:5"},
  {"id":2,"kind":"range","name":"load","lane":2,"group":1,"loc":"examples/gemm.cu:31:7"},
  {"id":3,"kind":"range","name":"arrive","lane":0,"group":1,"loc":"examples/gemm.cu:34:7"},
  {"id":4,"kind":"range","name":"wait","lane":0,"group":2,"loc":"examples/gemm.cu:42:7"},
  {"id":5,"kind":"range","name":"tile","lane":1,"group":2,"loc":"examples/gemm.cu:44:7"},
  {"id":6,"kind":"range","name":"mma","lane":1,"group":2,"loc":"examples/gemm.cu:46:9"},
  {"id":7,"kind":"record","name":"iter","lane":1,"group":2,"loc":"examples/gemm.cu:45:9"},
  {"id":8,"kind":"range_start","name":")" +
         epi + R"(","lane":0,"group":2,"loc":"examples/gemm.cu:52:5"}],
 "flows":[{"src":"arrive","dst":"wait"}]})";
}

// A warp-specialized GEMM shape: a producer loads tiles and arrives on a barrier, a consumer
// waits, runs the tile (two nested MMAs), and stores an epilogue.
Buffer demo(bool evil, std::string &map) {
  map = demo_map(evil);
  const uint32_t ctas = 8, tiles = 6;
  Buffer b(ctas, 3, 256);
  Lcg rng;
  for (uint32_t c = 0; c < ctas; ++c) {
    const uint32_t sm = c % 4;
    const uint64_t ns0 = kBaseNs + (c / 4) * 2600 + c * 90;
    const uint64_t cyc0 = 1'000'000ull * (sm + 1) + uint64_t(double(ns0 - kBaseNs) * kGhz);
    auto cyc = [&](uint64_t rel) { return cyc0 + rel; };
    for (uint32_t g = 0; g < 3; ++g)
      b.start(c, g, sm, ns0 + g * 3, cyc(g * 6));
    // block: setup, then spins (CTA 0 overflows its 256 slots)
    b.event(c, 0, B, 0, 0, cyc(20));
    b.event(c, 0, E, 0, 0, cyc(420));
    const uint32_t spins = c == 0 ? 300 : 12;
    for (uint32_t s = 0; s < spins; ++s)
      b.event(c, 0, I, 1, int32_t(s), cyc(500 + s * 20));
    uint64_t t = 450, last_arrive_end[tiles];
    for (uint32_t k = 0; k < tiles; ++k) {
      const uint64_t load = 380 + rng.next(200);
      b.event(c, 1, B, 2, int32_t(k), cyc(t));
      b.event(c, 1, E, 2, int32_t(k), cyc(t + load));
      b.event(c, 1, B, 3, int32_t(k), cyc(t + load + 10));
      b.event(c, 1, E, 3, int32_t(k), cyc(t + load + 60));
      last_arrive_end[k] = t + load + 60;
      t += load + 90;
    }
    const bool killed = c == 3; // the consumer of CTA 3 never finishes its last tile
    uint64_t u = 480;
    for (uint32_t k = 0; k < tiles; ++k) {
      const uint64_t w0 = std::max(u, last_arrive_end[k] + 15); // the barrier wait returns
      b.event(c, 2, B, 4, int32_t(k), cyc(w0));
      b.event(c, 2, E, 4, int32_t(k), cyc(w0 + 20));
      const uint64_t t0 = w0 + 30, half = 160 + rng.next(60);
      b.event(c, 2, B, 5, int32_t(k), cyc(t0));
      b.event(c, 2, I, 7, int32_t(k), cyc(t0 + 5));
      b.event(c, 2, B, 6, int32_t(2 * k), cyc(t0 + 10));
      b.event(c, 2, E, 6, int32_t(2 * k), cyc(t0 + 10 + half));
      if (killed && k == tiles - 1)
        break;
      b.event(c, 2, B, 6, int32_t(2 * k + 1), cyc(t0 + 20 + half));
      b.event(c, 2, E, 6, int32_t(2 * k + 1), cyc(t0 + 20 + 2 * half));
      b.event(c, 2, E, 5, int32_t(k), cyc(t0 + 30 + 2 * half));
      u = t0 + 40 + 2 * half;
    }
    if (!killed) {
      b.event(c, 2, B, 8, 0, cyc(u + 10));
      b.event(c, 2, E, 8, 0, cyc(u + 610));
      u += 640;
    }
    const uint64_t end_rel = std::max<uint64_t>(std::max(u, t), 500 + spins * 20) + 30;
    const uint64_t end_ns = ns0 + uint64_t(double(end_rel) / kGhz);
    b.end(c, 0, end_ns, cyc(end_rel));
    b.end(c, 1, end_ns, cyc(end_rel));
    if (!killed)
      b.end(c, 2, end_ns, cyc(end_rel));
  }
  return b;
}

// Many small events: per row, repeating "work { step step } tick tick" (8 records: 3 slices,
// 2 instants), 20-60 cycles apart.
Buffer bulk(uint64_t events, uint32_t ctas, uint32_t groups, std::string &map) {
  const uint32_t per_row = uint32_t(std::max<uint64_t>(8, events / (uint64_t(ctas) * groups)));
  map = R"({"format_version":1,"kernel":"bulk","source":"synthetic.cu","max_events":)" +
        std::to_string(per_row) + R"(,"clock":"clock64","groups":[)";
  for (uint32_t g = 0; g < groups; ++g)
    map += std::string(g ? "," : "") + R"({"index":)" + std::to_string(g) + R"(,"name":"g)" +
           std::to_string(g) + R"(","lead":")" + std::to_string(32 * g) + R"("})";
  map += R"(],"lanes":["main"],"sites":[)";
  for (uint32_t g = 0; g < groups; ++g) {
    const std::string gs = std::to_string(g), base = std::to_string(3 * g);
    map += std::string(g ? "," : "") + R"({"id":)" + base +
           R"(,"kind":"range","name":"work","lane":0,"group":)" + gs +
           R"(,"loc":"synthetic.cu:10:3"},{"id":)" + std::to_string(3 * g + 1) +
           R"(,"kind":"range","name":"step","lane":0,"group":)" + gs +
           R"(,"loc":"synthetic.cu:12:5"},{"id":)" + std::to_string(3 * g + 2) +
           R"(,"kind":"record","name":"tick","lane":0,"group":)" + gs +
           R"(,"loc":"synthetic.cu:14:5"})";
  }
  map += R"(],"flows":[]})";
  Buffer b(ctas, groups, per_row);
  Lcg rng;
  for (uint32_t c = 0; c < ctas; ++c) {
    const uint32_t sm = c % 132;
    const uint64_t ns0 = kBaseNs + (c / 132) * 50'000 + rng.next(500);
    const uint64_t cyc0 = 1'000'000ull * (sm + 1) + uint64_t(double(ns0 - kBaseNs) * kGhz);
    for (uint32_t g = 0; g < groups; ++g) {
      b.start(c, g, sm, ns0, cyc0);
      uint64_t t = cyc0 + 10;
      auto next = [&] { return t += 20 + rng.next(40); };
      const uint32_t s = 3 * g;
      for (uint32_t n = 0; n + 8 <= per_row; n += 8) {
        const int32_t p = int32_t(n / 8);
        b.event(c, g, B, s, p, next());
        b.event(c, g, B, s + 1, 2 * p, next());
        b.event(c, g, E, s + 1, 2 * p, next());
        b.event(c, g, B, s + 1, 2 * p + 1, next());
        b.event(c, g, E, s + 1, 2 * p + 1, next());
        b.event(c, g, I, s + 2, p, next());
        b.event(c, g, E, s, p, next());
        b.event(c, g, I, s + 2, p, next());
      }
      const uint64_t end = next();
      b.end(c, g, ns0 + uint64_t(double(end - cyc0) / kGhz), end);
    }
  }
  return b;
}

// Many small CTAs for the CTA picker: counts that differ from one CTA to the next.
Buffer many_ctas(uint32_t ctas, std::string &map) {
  map = R"({"format_version":1,"kernel":"many","source":"synthetic.cu","max_events":16,
 "clock":"clock64","groups":[{"index":0,"name":"worker","lead":"0"}],"lanes":["main"],
 "sites":[{"id":0,"kind":"range","name":"work","lane":0,"group":0,"loc":"synthetic.cu:20:3"},
  {"id":1,"kind":"record","name":"tick","lane":0,"group":0,"loc":"synthetic.cu:22:3"}],
 "flows":[]})";
  Buffer b(ctas, 1, 16);
  for (uint32_t c = 0; c < ctas; ++c) {
    const uint32_t sm = c % 132;
    const uint64_t ns0 = kBaseNs + (c / 132) * 3000 + (c % 5) * 7;
    const uint64_t cyc0 = 1'000'000ull * (sm + 1) + uint64_t(double(ns0 - kBaseNs) * kGhz);
    b.start(c, 0, sm, ns0, cyc0);
    uint64_t t = cyc0 + 20;
    for (uint32_t k = 0; k < 1 + c % 7; ++k, t += 300) {
      b.event(c, 0, B, 0, int32_t(k), t);
      b.event(c, 0, E, 0, int32_t(k), t + 250);
    }
    for (uint32_t k = 0; k < c % 3; ++k, t += 40)
      b.event(c, 0, I, 1, int32_t(k), t);
    b.end(c, 0, ns0 + uint64_t(double(t + 20 - cyc0) / kGhz), t + 20);
  }
  return b;
}

[[noreturn]] void usage() {
  std::fputs("usage: gen_trace demo OUT.ctrace [--evil]\n"
             "       gen_trace bulk OUT.ctrace [--events N] [--ctas C] [--groups G]\n"
             "       gen_trace warps OUT.ctrace [--ctas C]\n"
             "       gen_trace ctas OUT.ctrace [--ctas C]\n",
             stderr);
  std::exit(2);
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3)
    usage();
  const std::string mode = argv[1], out = argv[2];
  bool evil = false;
  uint64_t events = 1u << 20;
  uint32_t ctas = mode == "warps" ? 264 : mode == "ctas" ? 10000 : 64, groups = 2;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--evil")
      evil = true;
    else if (a == "--events" && i + 1 < argc)
      events = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--ctas" && i + 1 < argc)
      ctas = uint32_t(std::strtoul(argv[++i], nullptr, 10));
    else if (a == "--groups" && i + 1 < argc)
      groups = uint32_t(std::strtoul(argv[++i], nullptr, 10));
    else
      usage();
  }
  if (ctas == 0 || groups == 0)
    usage();
  std::string map;
  cutrace::test_support::BufferBuilder b = mode == "demo"   ? demo(evil, map)
                                           : mode == "bulk" ? bulk(events, ctas, groups, map)
                                           : mode == "warps"
                                               ? (map = cutrace::test_support::warp_map_json(64),
                                                  cutrace::test_support::warp_buffer(ctas, 64))
                                           : mode == "ctas" ? many_ctas(ctas, map)
                                                            : (usage(), Buffer(1, 1, 1));
  cutrace::BufferHeader h = b.header();
  if (mode == "ctas" && ctas % 100 == 0) { // a 2-D grid: 100 CTAs per row of the grid
    h.grid[0] = 100;
    h.grid[1] = ctas / 100;
    cutrace::encode_buffer_header(h, b.bytes.data());
  }
  cutrace::Ctrace c;
  c.map_json = map;
  for (int i = 0; i < 3; ++i) {
    c.grid[i] = h.grid[i];
    c.block[i] = b.header().block[i];
  }
  c.buffer = std::move(b.bytes);
  if (std::optional<std::string> err = cutrace::write_file_atomic(out, cutrace::encode_ctrace(c))) {
    std::fprintf(stderr, "gen_trace: %s\n", err->c_str());
    return 1;
  }
  return 0;
}
