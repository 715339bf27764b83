// Exports (docs/viewer.md) (cutrace/export.h) on synthetic buffers laid out as device.h writes
// them: Perfetto JSON structure, summary numbers against hand-computed values, HTML escaping and
// the embedded data the page draws from.
#include <cutrace/decode.h>
#include <cutrace/export.h>

#include "support/buffer_builder.h"
#include "support/page_data.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <set>

namespace cutrace {
namespace {

using nlohmann::json;

// Sites: 0 tile (range, mma, producer), 1 epi (range_start, main, producer), 2 iter (record, mma,
// producer), 3 arrive (range, main, block), 4 wait (range, main, producer).
std::string map_json(uint32_t max_events, const std::string &epi = "epi",
                     const std::string &kernel = "gemm") {
  return R"({"format_version":1,"kernel":)" + json(kernel).dump() +
         R"(,"source":"kernel.cu","max_events":)" + std::to_string(max_events) +
         R"(,"clock":"clock64",
 "groups":[{"index":0,"name":"block","lead":"0"},{"index":1,"name":"producer","lead":"32"}],
 "lanes":["main","mma"],
 "sites":[{"id":0,"kind":"range","name":"tile","lane":1,"group":1,"loc":"kernel.cu:12:3"},
          {"id":1,"kind":"range_start","name":)" +
         json(epi).dump() + R"(,"lane":0,"group":1,"loc":"kernel.cu:14:5"},
          {"id":2,"kind":"record","name":"iter","lane":1,"group":1,"loc":"kernel.cu:16:5"},
          {"id":3,"kind":"range","name":"arrive","lane":0,"group":0,"loc":"kernel.cu:20:5"},
          {"id":4,"kind":"range","name":"wait","lane":0,"group":1,"loc":"kernel.cu:22:5"}],
 "flows":[{"src":"arrive","dst":"wait"}]})";
}

DecodeMap test_map(uint32_t max_events, const std::string &epi = "epi",
                   const std::string &kernel = "gemm") {
  Expected<DecodeMap> map = parse_decode_map(map_json(max_events, epi, kernel));
  EXPECT_TRUE(map) << map.error;
  return *map;
}

using test_support::BufferBuilder;
using test_support::put32;
using test_support::put64;

constexpr auto B = RecordKind::begin, E = RecordKind::end, I = RecordKind::instant;

// 2 CTAs on SMs 3 and 5 at 2 GHz (20000 cycles in 10 us), CTA 1 starting 2 us after CTA 0.
// Per CTA: block arrives twice, producer waits twice (two arrive->wait flows), one tile with an
// iter instant, one epi: 6 slices and 1 instant.
Trace pipeline(const DecodeMap &map) {
  BufferBuilder b(2, 2, 32);
  for (uint32_t c = 0; c < 2; ++c) {
    const uint64_t ns0 = 1'000'000 + c * 2'000, cyc0 = 100'000 * (c + 1);
    for (uint32_t g = 0; g < 2; ++g)
      b.start(c, g, ns0, cyc0, c == 0 ? 3 : 5);
    b.event(c, 0, B, 3, 0, cyc0 + 100); // arrive [100, 200]
    b.event(c, 0, E, 3, 0, cyc0 + 200);
    b.event(c, 0, B, 3, 1, cyc0 + 1000); // arrive [1000, 1100]
    b.event(c, 0, E, 3, 1, cyc0 + 1100);
    b.event(c, 1, B, 4, 0, cyc0 + 300); // wait [300, 400]
    b.event(c, 1, E, 4, 0, cyc0 + 400);
    b.event(c, 1, B, 0, 7, cyc0 + 500); // tile [500, 900] with iter at 510
    b.event(c, 1, I, 2, 1, cyc0 + 510);
    b.event(c, 1, E, 0, 7, cyc0 + 900);
    b.event(c, 1, B, 4, 1, cyc0 + 1200); // wait [1200, 1300]
    b.event(c, 1, E, 4, 1, cyc0 + 1300);
    b.event(c, 1, B, 1, 9, cyc0 + 1400); // epi [1400, 1500]
    b.event(c, 1, E, 1, 9, cyc0 + 1500);
    for (uint32_t g = 0; g < 2; ++g)
      b.end(c, g, ns0 + 10'000, cyc0 + 20'000);
  }
  return decode(map, b.bytes.data(), b.bytes.size());
}

json parse_perfetto(const std::string &text) {
  json doc = json::parse(text, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << "not JSON";
  EXPECT_TRUE(doc.contains("traceEvents"));
  return doc;
}

TEST(Perfetto, CompleteEventsHaveTimesDurationsAndIds) {
  const DecodeMap map = test_map(32);
  const Trace t = pipeline(map);
  ASSERT_TRUE(t.ok());
  const json doc = parse_perfetto(export_perfetto(map, t));
  size_t slices = 0, instants = 0;
  for (const json &e : doc["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("tid")) << e.dump();
    if (e["ph"] == "X") {
      ++slices;
      for (const char *k : {"ts", "dur", "name", "args"})
        EXPECT_TRUE(e.contains(k)) << k << " missing in " << e.dump();
      EXPECT_GE(e["dur"].get<double>(), 0);
    } else if (e["ph"] == "i") {
      ++instants;
      EXPECT_TRUE(e.contains("ts"));
      EXPECT_EQ(e["s"], "t");
    }
  }
  EXPECT_EQ(slices, 2u * 6u);
  EXPECT_EQ(instants, 2u);
}

TEST(Perfetto, EveryFlowStartHasOneMatchingFinish) {
  const DecodeMap map = test_map(32);
  const Trace t = pipeline(map);
  ASSERT_EQ(t.flows.size(), 4u); // two arrive->wait pairs per CTA
  const json doc = parse_perfetto(export_perfetto(map, t));
  std::map<uint64_t, int> starts, finishes;
  for (const json &e : doc["traceEvents"]) {
    if (e["ph"] == "s")
      ++starts[e["id"].get<uint64_t>()];
    if (e["ph"] == "f") {
      ++finishes[e["id"].get<uint64_t>()];
      EXPECT_EQ(e["bp"], "e");
    }
  }
  EXPECT_EQ(starts.size(), t.flows.size());
  EXPECT_EQ(starts, finishes);
  for (const auto &[id, n] : starts)
    EXPECT_EQ(n, 1) << "flow id " << id << " used twice";
}

TEST(Perfetto, ProcessesAreCtasAndThreadsAreGroupLanes) {
  const DecodeMap map = test_map(32);
  const json doc = parse_perfetto(export_perfetto(map, pipeline(map)));
  std::map<std::pair<int, int>, std::string> thread_names;
  std::map<int, std::string> process_names;
  std::set<std::pair<int, int>> used;
  for (const json &e : doc["traceEvents"]) {
    const int pid = e["pid"], tid = e["tid"];
    if (e["ph"] == "M" && e["name"] == "process_name")
      process_names[pid] = e["args"]["name"];
    else if (e["ph"] == "M" && e["name"] == "thread_name")
      thread_names[{pid, tid}] = e["args"]["name"];
    else if (e["ph"] != "M")
      used.insert({pid, tid});
  }
  EXPECT_EQ(process_names[1], "CTA (0,0,0) on SM 3");
  EXPECT_EQ(process_names[2], "CTA (1,0,0) on SM 5");
  for (const auto &pt : used)
    EXPECT_TRUE(thread_names.count(pt)) << "thread " << pt.first << "/" << pt.second;
  std::set<std::string> names;
  for (const auto &[pt, name] : thread_names)
    names.insert(name);
  EXPECT_EQ(names, (std::set<std::string>{"block / main", "producer / main", "producer / mma"}));
}

TEST(Perfetto, TimestampsAreGlobalMicrosecondsAndMonotonicPerThread) {
  const DecodeMap map = test_map(32);
  const json doc = parse_perfetto(export_perfetto(map, pipeline(map)));
  std::map<std::pair<int, int>, double> last;
  bool saw_cta1_epi = false;
  for (const json &e : doc["traceEvents"]) {
    if (e["ph"] == "M")
      continue;
    const std::pair<int, int> key{e["pid"], e["tid"]};
    const double ts = e["ts"];
    if (last.count(key))
      EXPECT_GE(ts, last[key]) << e.dump();
    last[key] = ts;
    // CTA 1 starts 2 us after CTA 0; epi begins 1400 cycles = 700 ns into it, lasts 50 ns.
    if (e["ph"] == "X" && e["pid"] == 2 && e["name"] == "epi") {
      saw_cta1_epi = true;
      EXPECT_NEAR(ts, 2.7, 1e-9);
      EXPECT_NEAR(e["dur"].get<double>(), 0.05, 1e-9);
    }
  }
  EXPECT_TRUE(saw_cta1_epi);
}

TEST(Perfetto, PartialOverlapGetsItsOwnThreadNestingDoesNot) {
  const DecodeMap map = test_map(32);
  BufferBuilder b(1, 2, 32);
  b.start(0, 1, 1000, 10000);
  b.event(0, 1, B, 4, 0, 10100); // wait [100, 400]
  b.event(0, 1, B, 1, 0, 10200); // epi [200, 300]: nested in wait
  b.event(0, 1, E, 1, 0, 10300);
  b.event(0, 1, B, 1, 1, 10350); // epi [350, 500]: overlaps the end of wait
  b.event(0, 1, E, 4, 0, 10400);
  b.event(0, 1, E, 1, 1, 10500);
  b.end(0, 1, 2000, 12000);
  const Trace t = decode(map, b.bytes.data(), b.bytes.size());
  ASSERT_TRUE(t.ok());
  const json doc = parse_perfetto(export_perfetto(map, t));
  std::map<int, int> tid_by_payload_epi;
  int wait_tid = -1;
  for (const json &e : doc["traceEvents"])
    if (e["ph"] == "X") {
      if (e["name"] == "wait")
        wait_tid = e["tid"];
      else
        tid_by_payload_epi[e["args"]["payload"]] = e["tid"];
    }
  EXPECT_EQ(tid_by_payload_epi[0], wait_tid);
  EXPECT_NE(tid_by_payload_epi[1], wait_tid);
}

TEST(Perfetto, NamesAreJsonEscaped) {
  const DecodeMap map = test_map(32, "e\"p\\i\n</script>");
  const json doc = parse_perfetto(export_perfetto(map, pipeline(map)));
  bool found = false;
  for (const json &e : doc["traceEvents"])
    found = found || (e["ph"] == "X" && e["name"] == "e\"p\\i\n</script>");
  EXPECT_TRUE(found);
}

TEST(Summary, DurationsPerNameMatchHandComputedValues) {
  const DecodeMap map = test_map(32);
  BufferBuilder b(1, 2, 32);
  b.start(0, 1, 1000, 10000);
  // tile durations 100, 400, 200, 300 cycles; forced 2 GHz: 50, 200, 100, 150 ns.
  uint64_t t = 10000;
  for (uint64_t d : {100, 400, 200, 300}) {
    b.event(0, 1, B, 0, 0, t);
    b.event(0, 1, E, 0, 0, t + d);
    t += d + 10;
  }
  b.event(0, 1, I, 2, 0, t);
  b.end(0, 1, 3000, 14000);
  DecodeOptions options;
  options.ghz_override = 2.0;
  const Trace trace = decode(map, b.bytes.data(), b.bytes.size(), options);
  ASSERT_TRUE(trace.ok());
  const TraceSummary s = summarize(map, trace);
  ASSERT_EQ(s.events.size(), 2u);
  const EventSummary &iter = s.events[0], &tile = s.events[1];
  EXPECT_EQ(iter.name, "iter");
  EXPECT_TRUE(iter.instant);
  EXPECT_EQ(iter.count, 1u);
  EXPECT_EQ(tile.name, "tile");
  EXPECT_EQ(tile.count, 4u);
  EXPECT_DOUBLE_EQ(tile.cycles.total, 1000);
  EXPECT_DOUBLE_EQ(tile.cycles.mean, 250);
  EXPECT_DOUBLE_EQ(tile.cycles.p50, 200); // nearest rank: ceil(0.50 * 4) = 2nd of 100,200,300,400
  EXPECT_DOUBLE_EQ(tile.cycles.p95, 400); // ceil(0.95 * 4) = 4th
  EXPECT_DOUBLE_EQ(tile.cycles.max, 400);
  EXPECT_DOUBLE_EQ(tile.ns.total, 500);
  EXPECT_DOUBLE_EQ(tile.ns.mean, 125);
  EXPECT_DOUBLE_EQ(tile.ns.p50, 100);
  EXPECT_DOUBLE_EQ(tile.ns.max, 200);
}

TEST(Summary, GroupBusyFractionIsUnionOfSlicesOverRowSpan) {
  const DecodeMap map = test_map(32);
  BufferBuilder b(1, 2, 32);
  b.start(0, 1, 0, 0);         // 1 GHz: cycles = ns; row lives [0, 1000] ns
  b.event(0, 1, B, 0, 0, 100); // tile [100, 300]
  b.event(0, 1, B, 1, 0, 200); // epi [200, 400] (other lane, overlaps tile)
  b.event(0, 1, E, 0, 0, 300);
  b.event(0, 1, E, 1, 0, 400);
  b.event(0, 1, B, 4, 0, 600); // wait [600, 700]
  b.event(0, 1, E, 4, 0, 700);
  b.end(0, 1, 1000, 1000);
  DecodeOptions options;
  options.ghz_override = 1.0;
  const TraceSummary s = summarize(map, decode(map, b.bytes.data(), b.bytes.size(), options));
  ASSERT_EQ(s.groups.size(), 1u);
  EXPECT_EQ(s.groups[0].name, "producer");
  EXPECT_DOUBLE_EQ(s.groups[0].busy_ns, 400);
  EXPECT_DOUBLE_EQ(s.groups[0].span_ns, 1000);
  EXPECT_DOUBLE_EQ(s.groups[0].busy_fraction(), 0.4);
}

TEST(Summary, SmSpanAndCountsOfTroubles) {
  const DecodeMap map = test_map(4);
  BufferBuilder b(3, 2, 4);
  b.start(0, 0, 1000, 5000, 2);
  b.end(0, 0, 4000, 11000);
  b.start(1, 0, 2000, 9000, 2);
  b.end(1, 0, 6000, 17000);
  b.start(2, 1, 1500, 0, 9); // SM 9: never ends, an open BEGIN, an END without BEGIN, overflow
  b.event(2, 1, E, 4, 0, 10);
  b.event(2, 1, B, 0, 0, 20);
  for (int i = 0; i < 4; ++i)
    b.event(2, 1, I, 2, i, 30 + i);
  b.end(2, 1, 2500, 2000);
  const Trace t = decode(map, b.bytes.data(), b.bytes.size());
  const TraceSummary s = summarize(map, t);
  ASSERT_EQ(s.sms.size(), 2u);
  EXPECT_EQ(s.sms[0].smid, 2u);
  EXPECT_EQ(s.sms[0].ctas, 2u);
  EXPECT_DOUBLE_EQ(s.sms[0].first_start_ns, 0); // origin is the first start, 1000
  EXPECT_DOUBLE_EQ(s.sms[0].last_end_ns, 5000); // 6000 - 1000
  EXPECT_EQ(s.sms[1].smid, 9u);
  EXPECT_EQ(s.dropped, 2u); // 6 attempted into 4 slots
  EXPECT_EQ(s.unmatched_ends, 1u);
  EXPECT_EQ(s.incomplete, 1u);
  EXPECT_EQ(s.slices, 1u);
  EXPECT_EQ(s.instants, 2u);
  const std::string table = format_summary(s);
  for (const char *needle : {"dropped events (overflow)", "incomplete slices", "unmatched ends",
                             "tile", "iter (instant)", "p95 ns"})
    EXPECT_NE(table.find(needle), std::string::npos) << needle;
}

TEST(Summary, TableColumnsAreAligned) {
  const DecodeMap map = test_map(32);
  const std::string table = format_summary(summarize(map, pipeline(map)));
  // In the events table every data row ends where the header row ends.
  const size_t head = table.find("  name ");
  ASSERT_NE(head, std::string::npos);
  const size_t head_end = table.find('\n', head);
  const size_t width = head_end - head;
  size_t at = table.find('\n', head_end + 1) + 1; // skip the rule
  for (int rows = 0; rows < 3; ++rows) {
    const size_t nl = table.find('\n', at);
    const std::string line = table.substr(at, nl - at);
    if (line.find("(instant)") == std::string::npos)
      EXPECT_EQ(line.size(), width) << line;
    at = nl + 1;
  }
}

// ---- HTML ----

using test_support::column;
using test_support::count_ci;
using test_support::embedded_data;
using test_support::unbase64;

TEST(Html, MaliciousNamesCannotCloseTheScriptElement) {
  const std::string evil = "</script><script>alert(1)</script><!--";
  const DecodeMap map = test_map(32, evil, "k</title><script>alert(2)</script>");
  const std::string html = export_html(map, pipeline(map));
  EXPECT_EQ(count_ci(html, "</script"), 2u); // the data element's and the viewer's own
  EXPECT_EQ(count_ci(html, "<script"), 2u);
  EXPECT_EQ(html.find("<!--"), std::string::npos);
  EXPECT_NE(html.find("<title>cutrace: k&lt;/title&gt;&lt;script&gt;"), std::string::npos);
  const json data = json::parse(embedded_data(html));
  const std::vector<std::string> names = data["names"];
  EXPECT_NE(std::find(names.begin(), names.end(), evil), names.end());
}

TEST(Html, SelfContainedWithoutNetwork) {
  const DecodeMap map = test_map(32);
  const std::string html = export_html(map, pipeline(map));
  for (const char *needle : {"http://", "https://", "src=", "<link", "@import", "fetch("})
    EXPECT_EQ(html.find(needle), std::string::npos) << needle;
  EXPECT_NE(html.find("<canvas"), std::string::npos);
  EXPECT_NE(html.find("cutraceStats"), std::string::npos);
}

TEST(Html, EmbedsEverySliceInstantAndFlowOfTheTrace) {
  const DecodeMap map = test_map(32);
  const Trace t = pipeline(map);
  const json data = json::parse(embedded_data(export_html(map, t)));
  EXPECT_EQ(data["kernel"], "gemm");
  EXPECT_EQ(data["S"]["n"], 12);
  EXPECT_EQ(data["I"]["n"], 2);
  EXPECT_EQ(column<int32_t>(data, "S", "site").size(), 12u);
  EXPECT_EQ(unbase64(data["flows"].get<std::string>()).size(), t.flows.size() * 2 * 4);
  ASSERT_EQ(data["ctas"].size(), 2u);
  EXPECT_EQ(data["ctas"][1]["sm"], 5);
  EXPECT_EQ(data["ctas"][1]["slices"], 6);
  std::multiset<double> want, got;
  for (const Row &r : t.rows)
    for (const Slice &s : r.slices)
      want.insert(double(s.begin_cycles));
  for (const test_support::PageSlice &s : test_support::page_slices(data))
    got.insert(s.b_cyc);
  EXPECT_EQ(got, want);
  EXPECT_EQ(data["counts"]["flows"], 4);
  // The tooltip's file:line comes from the map's sites.
  EXPECT_EQ(data["sites"][0]["loc"], "kernel.cu:12:3");
}

// The page binary-searches every track by begin and by end: on each track slices must be
// sorted and must not overlap, whatever nesting or partial overlap the row has.
TEST(Html, TracksHoldSortedNonOverlappingSlicesForAnyRow) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    const DecodeMap map = test_map(64);
    BufferBuilder b(2, 2, 64);
    for (uint32_t c = 0; c < 2; ++c) {
      b.start(c, 1, 1000, 0);
      uint64_t ts = 1;
      std::vector<uint32_t> open;
      for (int n = 0; n < 60; ++n) {
        ts += rng() % 20;
        const uint32_t site = std::vector<uint32_t>{0, 1, 4}[rng() % 3];
        if (!open.empty() && rng() % 2) {
          const size_t k = rng() % open.size(); // ends in any order: partial overlaps
          b.event(c, 1, E, open[k], 0, ts);
          open.erase(open.begin() + long(k));
        } else {
          b.event(c, 1, B, site, 0, ts);
          open.push_back(site);
        }
      }
      b.end(c, 1, 5000, ts + 5);
    }
    const Trace t = decode(map, b.bytes.data(), b.bytes.size());
    const json data = json::parse(embedded_data(export_html(map, t)));
    std::vector<double> bc, ec;
    for (const test_support::PageSlice &s : test_support::page_slices(data))
      bc.push_back(s.b_cyc), ec.push_back(s.e_cyc);
    size_t total = 0;
    for (const json &cta : data["ctas"])
      for (const json &track : cta["tracks"]) {
        const size_t first = track[3], count = track[4];
        total += count;
        for (size_t k = first; k + 1 < first + count; ++k) {
          EXPECT_LE(bc[k], bc[k + 1]);
          EXPECT_LE(ec[k], bc[k + 1]) << "overlap on a track, trial " << trial;
        }
      }
    size_t slices = 0;
    for (const Row &r : t.rows)
      slices += r.slices.size();
    EXPECT_EQ(total, slices);
  }
}

// The page rebuilds every slice from narrow columns (deltas, zigzagged payloads, ns from the
// row's clock with the exceptions listed): the values must be the decoder's, bit for bit, on
// either clock and with negative payloads.
TEST(Html, CompactColumnsGiveTheDecodersValuesBitForBit) {
  std::mt19937 rng(11);
  for (Clock clock : {Clock::clock64, Clock::globaltimer}) {
    const DecodeMap map = test_map(64);
    BufferBuilder b(2, 2, 64, clock);
    for (uint32_t c = 0; c < 2; ++c) {
      b.start(c, 1, 1000 + 37 * c, 5000 + 11 * c);
      uint64_t ts = 5000 + 11 * c + 1;
      for (int n = 0; n < 30; ++n) {
        ts += 1 + rng() % 70000; // some deltas need more than 16 bits
        const int32_t payload = int32_t(rng() % 2000) - 1000;
        b.event(c, 1, n % 2 ? E : B, 0, payload, ts);
      }
      b.end(c, 1, 1000 + 37 * c + ts, ts + 3);
    }
    const Trace t = decode(map, b.bytes.data(), b.bytes.size());
    const json data = json::parse(embedded_data(export_html(map, t)));
    std::multiset<std::tuple<int64_t, double, double, int64_t, uint64_t, uint64_t>> want, got;
    auto bits = [](double v) {
      uint64_t u;
      std::memcpy(&u, &v, sizeof u);
      return u;
    };
    for (size_t r = 0; r < t.rows.size(); ++r)
      for (const Slice &s : t.rows[r].slices)
        want.insert({int64_t(r), double(s.begin_cycles), double(s.end_cycles), s.payload,
                     bits(s.begin_ns), bits(s.end_ns)});
    for (const test_support::PageSlice &s : test_support::page_slices(data)) {
      got.insert({s.row, s.b_cyc, s.e_cyc, s.payload, bits(s.b_ns), bits(s.e_ns)});
      EXPECT_EQ(data["names"][size_t(s.name)], "tile");
    }
    EXPECT_EQ(got, want) << (clock == Clock::clock64 ? "clock64" : "globaltimer");
    EXPECT_EQ(want.size(), 30u);
  }
}

TEST(Html, InitialCtaIsRecorded) {
  const DecodeMap map = test_map(32);
  HtmlOptions options;
  options.initial_cta = 1;
  const json data = json::parse(embedded_data(export_html(map, pipeline(map), options)));
  EXPECT_EQ(data["initial_cta"], 1);
}

TEST(Export, RestrictToCtaKeepsItsRowsAndFlows) {
  const DecodeMap map = test_map(32);
  const Trace t = restrict_to_cta(pipeline(map), 1);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0].cta, 1u);
  EXPECT_EQ(t.flows.size(), 2u);
  for (const Flow &f : t.flows) {
    EXPECT_EQ(t.rows[f.src.row].slices[f.src.slice].name, "arrive");
    EXPECT_EQ(t.rows[f.dst.row].slices[f.dst.slice].name, "wait");
  }
}

TEST(Export, CtaCoordinatesFollowTheLinearIndexFormula) {
  BufferHeader h;
  h.grid[0] = 4, h.grid[1] = 3, h.grid[2] = 2;
  EXPECT_EQ(cta_coords(h, 0), (std::array<uint32_t, 3>{0, 0, 0}));
  EXPECT_EQ(cta_coords(h, 1 + 2 * 4 + 1 * 12), (std::array<uint32_t, 3>{1, 2, 1}));
}

} // namespace
} // namespace cutrace
