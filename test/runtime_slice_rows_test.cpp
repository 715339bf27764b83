// Rows of a CTA with TRACE_GROUPS groups (docs/FORMAT.md, "Rows of a CTA"): the decoder's row
// plan, labels, header checks and empty rows; TRACE_DAG pairing by payload across slice rows
// (docs/annotations.md, "TRACE_DAG"); and what the exports make of slice rows (docs/viewer.md).
#include <cutrace/ctrace.h>
#include <cutrace/decode.h>
#include <cutrace/export.h>
#include <cutrace/run.h>
#include <cutrace/run_trace.h>

#include "support/buffer_builder.h"
#include "support/page_data.h"
#include "support/slice_builder.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

namespace cutrace {
namespace {

using nlohmann::json;
using test_support::BufferBuilder;
using test_support::put32;
using test_support::rows_of_warp;
using test_support::warp_buffer;
using test_support::warp_map;

constexpr auto B = RecordKind::begin, E = RecordKind::end, I = RecordKind::instant;

Trace decode_bytes(const DecodeMap &map, const std::vector<uint8_t> &bytes) {
  return decode(map, bytes.data(), bytes.size());
}

std::string all_problems(const Trace &t) {
  std::string s;
  for (const std::string &p : t.problems)
    s += p + "\n";
  return s;
}

// ---- the row plan ----

TEST(SliceRows, MapKeysGiveTheGroupItsSliceSizeAndFirstThread) {
  const DecodeMap map = warp_map(64, 128, 128);
  ASSERT_EQ(map.groups.size(), 2u);
  EXPECT_FALSE(map.groups[0].sliced());
  EXPECT_TRUE(map.groups[1].sliced());
  EXPECT_EQ(map.groups[1].slice_threads, 128u);
  EXPECT_EQ(map.groups[1].first_thread, 128u);
  EXPECT_TRUE(map.any_sliced());
}

TEST(SliceRows, SliceKeysComeTogetherAsMultiplesOf32) {
  const std::string base = test_support::warp_map_json(64);
  auto with = [&](const std::string &from, const std::string &to) {
    std::string json = base;
    json.replace(json.find(from), from.size(), to);
    return parse_decode_map(json);
  };
  const Expected<DecodeMap> alone = with(R"(,"first_thread":0)", "");
  ASSERT_FALSE(alone);
  EXPECT_NE(alone.error.find("group 1 'warp': slice_threads and first_thread come together"),
            std::string::npos)
      << alone.error;
  const Expected<DecodeMap> odd = with(R"("slice_threads":32)", R"("slice_threads":48)");
  ASSERT_FALSE(odd);
  EXPECT_NE(odd.error.find("slice_threads 48 is not a multiple of 32 from 32 to 1024"),
            std::string::npos)
      << odd.error;
  const Expected<DecodeMap> far = with(R"("first_thread":0)", R"("first_thread":1024)");
  ASSERT_FALSE(far);
  EXPECT_NE(far.error.find("first_thread 1024 is not a multiple of 32 below 1024"),
            std::string::npos)
      << far.error;
}

TEST(SliceRows, GroupsTakeRowsInIndexOrderASlicedGroupOnePerSlice) {
  const DecodeMap map = warp_map(64, 128, 128); // block row, then warpgroups 1 and 2
  const uint32_t block[3] = {384, 1, 1};
  const RowPlan plan(map, block);
  EXPECT_EQ(plan.rows_per_cta(), 3u);
  EXPECT_EQ(plan.place(0).group, 0u);
  EXPECT_EQ(plan.place(0).slice, kNoSlice);
  EXPECT_EQ(plan.place(0).first_thread, 0u); // the literal lead
  EXPECT_EQ(plan.place(2).group, 1u);
  EXPECT_EQ(plan.place(2).slice, 1u);
  EXPECT_EQ(plan.place(2).first_thread, 256u);
  EXPECT_EQ(row_label(map, plan.place(1)), "warp[wg1]");
  EXPECT_EQ(row_label(map, plan.place(2)), "warp[wg2]");
  // A partial last slice counts: its first thread exists and writes.
  const uint32_t partial[3] = {200, 1, 1};
  EXPECT_EQ(RowPlan(map, partial).rows_per_cta(), 2u);
  // No thread past `first`: the sliced group has no row at all.
  const uint32_t small[3] = {128, 1, 1};
  EXPECT_EQ(RowPlan(map, small).rows_per_cta(), 1u);
  const uint32_t threads_3d[3] = {32, 4, 3}; // 384 threads
  EXPECT_EQ(RowPlan(map, threads_3d).rows_per_cta(), 3u);
}

TEST(SliceRows, OtherSliceSizesAreLabelledByTheirFirstThread) {
  const DecodeMap map = warp_map(64, 64, 32);
  const uint32_t block[3] = {256, 1, 1};
  const RowPlan plan(map, block);
  ASSERT_EQ(plan.rows_per_cta(), 5u); // 1 + ceil((256 - 32) / 64)
  std::vector<std::string> labels;
  for (uint32_t r = 1; r < 5; ++r)
    labels.push_back(row_label(map, plan.place(r)));
  EXPECT_EQ(labels,
            (std::vector<std::string>{"warp[t32]", "warp[t96]", "warp[t160]", "warp[t224]"}));
}

// 1024-thread CTAs with TRACE_GROUPS("warp", 32): a per-CTA row and 32 warp rows per CTA, each
// with its own events.
TEST(SliceRows, EveryWarpOfEveryCtaHasItsOwnRowWithItsEvents) {
  const DecodeMap map = warp_map(64);
  const BufferBuilder b = warp_buffer(3);
  const Trace t = decode_bytes(map, b.bytes);
  ASSERT_TRUE(t.ok()) << all_problems(t);
  ASSERT_EQ(t.rows.size(), 3u * 33);
  for (uint32_t c = 0; c < 3; ++c) {
    const Row &block = t.rows[c * 33];
    EXPECT_EQ(block.label, "block");
    EXPECT_FALSE(block.sliced());
    EXPECT_EQ(block.slices.size(), 1u);
    for (uint32_t w = 0; w < 32; ++w) {
      const Row &row = t.rows[c * 33 + 1 + w];
      EXPECT_EQ(row.cta, c);
      EXPECT_EQ(row.row_in_cta, 1 + w);
      EXPECT_EQ(row.group, 1u);
      EXPECT_EQ(row.slice, w);
      EXPECT_EQ(row.first_thread, 32 * w);
      EXPECT_EQ(row.label, "warp[w" + std::to_string(w) + "]");
      EXPECT_EQ(row.slices.size(), 2 * rows_of_warp(w)) << row.label;
      EXPECT_EQ(row.instants.size(), rows_of_warp(w)) << row.label;
      EXPECT_TRUE(row.closed);
    }
  }
}

TEST(SliceRows, HeaderRowsPerCtaMustMatchTheMapAndTheBlock) {
  const DecodeMap map = warp_map(64);
  BufferBuilder b = warp_buffer(1);
  put32(b.bytes, 4 * 7, 512); // block.x 512: 17 rows per CTA, the header still says 33
  const Trace t = decode_bytes(map, b.bytes);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(all_problems(t).find("buffer header says 33 rows per CTA, but the decode map's 2 "
                                 "groups give 17 for blocks of (512,1,1) threads"),
            std::string::npos)
      << all_problems(t);
}

TEST(SliceRows, MapWithoutSlicedGroupsDecodesRowsAsGroups) {
  // An old map: rows per CTA = groups, labels are the names, first threads the literal leads.
  const DecodeMap map = *parse_decode_map(
      R"({"format_version":1,"kernel":"k","max_events":4,"clock":"clock64",
 "groups":[{"index":0,"name":"a","lead":"0"},{"index":1,"name":"b","lead":"threadIdx.x == 64"}],
 "lanes":["main"],"sites":[]})");
  EXPECT_FALSE(map.any_sliced());
  BufferBuilder b(2, 2, 4);
  b.start(1, 1, 100, 1000);
  b.end(1, 1, 5000, 9000);
  const Trace t = decode_bytes(map, b.bytes);
  ASSERT_TRUE(t.ok()) << all_problems(t);
  ASSERT_EQ(t.rows.size(), 4u);
  EXPECT_EQ(t.rows[3].group, 1u);
  EXPECT_EQ(t.rows[3].row_in_cta, 1u);
  EXPECT_FALSE(t.rows[3].sliced());
  EXPECT_EQ(t.rows[3].label, "b");
  EXPECT_FALSE(t.rows[3].first_thread.has_value());
  EXPECT_EQ(t.rows[2].first_thread, 0u);
  // Header word 2 disagreeing with such a map keeps its old message.
  BufferBuilder three(1, 3, 4);
  const Trace bad = decode_bytes(map, three.bytes);
  EXPECT_NE(all_problems(bad).find("decode map has 2 groups, buffer header says 3"),
            std::string::npos)
      << all_problems(bad);
  EXPECT_EQ(bad.rows[2].label, "#2");
}

TEST(SliceRows, RowHeaderHoldsTheRowWithinItsCta) {
  const DecodeMap map = warp_map(64);
  BufferBuilder b = warp_buffer(2);
  put32(b.bytes, b.row_at(1, 5) + 28, 1); // CTA 1's warp 4 row claims to be row 1
  const Trace t = decode_bytes(map, b.bytes);
  EXPECT_NE(all_problems(t).find("row 38: header names CTA 1 row 1, but the row belongs to CTA 1 "
                                 "row 5 (warp[w4])"),
            std::string::npos)
      << all_problems(t);
}

// A group whose lead is not a constant: thread 0 writes the start header at kernel entry, and
// when no thread becomes the writer the row has a start, no end and no records.
TEST(SliceRows, StartedRowWithoutEndOrRecordsIsEmptyNotCutOff) {
  const DecodeMap map = warp_map(64);
  BufferBuilder b = warp_buffer(1);
  const size_t at = b.row_at(0, 7);
  std::fill(b.bytes.begin() + long(at) + 32,
            b.bytes.begin() + long(at + b.header().row_stride_bytes),
            0); // warp 6: no end header, no records
  const Trace t = decode_bytes(map, b.bytes);
  ASSERT_TRUE(t.ok()) << all_problems(t);
  const Row &row = t.rows[7];
  EXPECT_TRUE(row.started_empty());
  EXPECT_FALSE(row.never_ended());
  const TraceSummary s = summarize(map, t);
  EXPECT_EQ(s.rows_killed, 0u);
  EXPECT_EQ(format_summary(s).find("never ended"), std::string::npos);
  const json data = json::parse(test_support::embedded_data(export_html(map, t)));
  EXPECT_EQ(data["counts"]["rows_never_ended"], 0);
  // The same row cut off after one record is a kernel that trapped.
  BufferBuilder cut = warp_buffer(1);
  std::fill(cut.bytes.begin() + long(at) + 32, cut.bytes.begin() + long(at) + 64, 0);
  const Trace c = decode_bytes(map, cut.bytes);
  EXPECT_TRUE(c.rows[7].never_ended());
  EXPECT_EQ(summarize(map, c).rows_killed, 1u);
}

// What the host stores (the compact layout) decodes to the same rows as the device's buffer.
TEST(SliceRows, CompactLayoutDecodesToTheSameSliceRows) {
  const DecodeMap map = warp_map(64);
  const BufferBuilder b = warp_buffer(4);
  const Trace full = decode_bytes(map, b.bytes);
  const std::vector<uint8_t> compact = compact_buffer(b.bytes.data(), b.bytes.size());
  ASSERT_LT(compact.size(), b.bytes.size());
  const Trace small = decode_bytes(map, compact);
  ASSERT_TRUE(small.ok()) << all_problems(small);
  ASSERT_EQ(small.rows.size(), full.rows.size());
  for (size_t r = 0; r < full.rows.size(); ++r) {
    const Row &x = full.rows[r], &y = small.rows[r];
    EXPECT_EQ(x.label, y.label);
    EXPECT_EQ(x.slice, y.slice);
    EXPECT_EQ(x.row_in_cta, y.row_in_cta);
    ASSERT_EQ(x.slices.size(), y.slices.size());
    for (size_t i = 0; i < x.slices.size(); ++i) {
      EXPECT_EQ(x.slices[i].begin_ns, y.slices[i].begin_ns);
      EXPECT_EQ(x.slices[i].payload, y.slices[i].payload);
    }
    EXPECT_EQ(x.instants.size(), y.instants.size());
  }
}

TEST(SliceRows, RunLaunchesCarryTheSliceRows) {
  cutrace::Run run;
  run.run_json = R"({"program":"rownorm","pid":7})";
  run.devices.push_back(R"({"index":0,"name":"H200","aligned":false})");
  run.maps.push_back(test_support::warp_map_json(64));
  const BufferBuilder b = warp_buffer(2);
  LaunchRecord rec;
  rec.grid[0] = 2;
  rec.block[0] = 1024;
  rec.buffer = compact_buffer(b.bytes.data(), b.bytes.size());
  run.launches.push_back(rec);
  run.end_json = R"({"kernels":[]})";
  const std::vector<uint8_t> file = encode_run(run);
  const Expected<cutrace::Run> read = parse_run(file.data(), file.size());
  ASSERT_TRUE(read) << read.error;
  const Expected<RunTrace> decoded = decode_run(*read);
  ASSERT_TRUE(decoded) << decoded.error;
  ASSERT_EQ(decoded->launches.size(), 1u);
  const Trace &t = decoded->launches[0].trace;
  ASSERT_TRUE(t.ok()) << all_problems(t);
  ASSERT_EQ(t.rows.size(), 66u);
  EXPECT_EQ(t.rows[33 + 32].label, "warp[w31]");
  EXPECT_EQ(t.rows[33 + 32].slices.size(), 2 * rows_of_warp(31));
}

// ---- TRACE_DAG pairing ----

// A producer row (TRACE_GROUP, thread 0) loading tiles 0..7, and two consumer warpgroup rows
// (TRACE_GROUPS("consumer", 128, 128)) taking even and odd tiles. Warpgroup 2 starts each of its
// consumes earlier than warpgroup 1, so in time order the i-th load would meet the wrong tile.
const char *kPipelineMap = R"({"format_version":1,"kernel":"ws","max_events":64,"clock":"clock64",
 "groups":[{"index":0,"name":"producer","lead":"0"},
           {"index":1,"name":"consumer","lead":"slice","slice_threads":128,"first_thread":128}],
 "lanes":["main"],
 "sites":[{"id":0,"kind":"range","name":"load","lane":0,"group":0},
          {"id":1,"kind":"range","name":"consume","lane":0,"group":1}],
 "flows":[{"src":"load","dst":"consume"}]})";

struct Pipeline {
  BufferBuilder buffer{2, 3, 64, Clock::clock64, 384};
  // consume_payloads false: every consume records payload 0 (written without one).
  explicit Pipeline(bool consume_payloads) {
    for (uint32_t c = 0; c < 2; ++c) {
      const uint64_t cyc0 = 1'000'000 * (c + 1), ns0 = 10'000'000 + 50'000 * c;
      for (uint32_t r = 0; r < 3; ++r)
        buffer.start(c, r, ns0, cyc0, c);
      for (int32_t k = 0; k < 8; ++k) { // load k: [100k, 100k + 80]
        buffer.event(c, 0, B, 0, k, cyc0 + 100 * uint64_t(k));
        buffer.event(c, 0, E, 0, k, cyc0 + 100 * uint64_t(k) + 80);
      }
      // Warpgroup 1 (row 1) consumes tiles 0, 2, 4, 6 at [200j + 150, +400]; warpgroup 2 (row 2)
      // consumes tiles 1, 3, 5, 7 at [200j + 140, +400]: each begins before its load ends.
      for (uint32_t j = 0; j < 4; ++j)
        for (uint32_t wg = 0; wg < 2; ++wg) {
          const int32_t tile = int32_t(2 * j + wg);
          const uint64_t at = cyc0 + 200 * j + (wg ? 140 : 150);
          const int32_t payload = consume_payloads ? tile : 0;
          buffer.event(c, 1 + wg, B, 1, payload, at);
          buffer.event(c, 1 + wg, E, 1, payload, at + 400);
        }
      for (uint32_t r = 0; r < 3; ++r)
        buffer.end(c, r, ns0 + 5000, cyc0 + 5000);
    }
  }
};

TEST(Flows, PayloadsPairEachLoadWithTheConsumeOfItsTileAcrossSliceRows) {
  const DecodeMap map = *parse_decode_map(kPipelineMap);
  const Trace t = decode_bytes(map, Pipeline(true).buffer.bytes);
  ASSERT_TRUE(t.ok()) << all_problems(t);
  EXPECT_EQ(t.rows[1].label, "consumer[wg1]");
  EXPECT_EQ(t.rows[2].label, "consumer[wg2]");
  ASSERT_EQ(t.flows.size(), 16u); // 8 loads per CTA, each with exactly one arrow
  EXPECT_EQ(t.unpaired_flows, 0u);
  EXPECT_EQ(t.backward_flows, 0u);
  std::map<std::pair<uint32_t, int32_t>, int> arrows; // (CTA, tile) -> arrows
  std::set<uint32_t> consumer_rows;
  for (const Flow &f : t.flows) {
    const Slice &src = t.rows[f.src.row].slices[f.src.slice];
    const Slice &dst = t.rows[f.dst.row].slices[f.dst.slice];
    EXPECT_EQ(src.payload, dst.payload) << "load of tile " << src.payload;
    EXPECT_EQ(t.rows[f.src.row].cta, t.rows[f.dst.row].cta);
    EXPECT_EQ(t.rows[f.dst.row].label, src.payload % 2 ? "consumer[wg2]" : "consumer[wg1]");
    ++arrows[{t.rows[f.src.row].cta, src.payload}];
    consumer_rows.insert(f.dst.row % 3);
  }
  EXPECT_EQ(arrows.size(), 16u);
  EXPECT_EQ(consumer_rows, (std::set<uint32_t>{1, 2}));
}

TEST(Flows, WithoutPayloadsOnBothEndsTheIthPairsWithTheIthInTimeOrder) {
  const DecodeMap map = *parse_decode_map(kPipelineMap);
  const Trace t = decode_bytes(map, Pipeline(false).buffer.bytes); // consumes all carry 0
  ASSERT_EQ(t.flows.size(), 16u);
  // In time order the consumes alternate wg2, wg1 (140 before 150): load 0 -> wg2's first.
  const Flow &first = t.flows[0];
  EXPECT_EQ(t.rows[first.src.row].slices[first.src.slice].payload, 0);
  EXPECT_EQ(t.rows[first.dst.row].label, "consumer[wg2]");
  const Flow &second = t.flows[1];
  EXPECT_EQ(t.rows[second.src.row].slices[second.src.slice].payload, 1);
  EXPECT_EQ(t.rows[second.dst.row].label, "consumer[wg1]");
}

TEST(Flows, EqualPayloadsPairInTimeOrderAndTheRestIsCountedUnpaired) {
  const DecodeMap map = *parse_decode_map(kPipelineMap);
  BufferBuilder b(1, 3, 64, Clock::clock64, 384);
  for (uint32_t r = 0; r < 3; ++r)
    b.start(0, r, 1000, 10'000, 0);
  // loads: tile 5 twice, tile 6 once; consumes: tile 5 twice (wg2 first), tile 7 once.
  const std::vector<std::pair<int32_t, uint64_t>> loads{{5, 0}, {6, 100}, {5, 200}};
  for (auto [tile, at] : loads) {
    b.event(0, 0, B, 0, tile, 10'000 + at);
    b.event(0, 0, E, 0, tile, 10'000 + at + 50);
  }
  b.event(0, 2, B, 1, 5, 10'040);
  b.event(0, 2, E, 1, 5, 10'400);
  b.event(0, 1, B, 1, 5, 10'300);
  b.event(0, 1, E, 1, 5, 10'600);
  b.event(0, 1, B, 1, 7, 10'700);
  b.event(0, 1, E, 1, 7, 10'800);
  for (uint32_t r = 0; r < 3; ++r)
    b.end(0, r, 9000, 20'000);
  const Trace t = decode_bytes(map, b.bytes);
  ASSERT_EQ(t.flows.size(), 2u);
  EXPECT_EQ(t.rows[t.flows[0].dst.row].label, "consumer[wg2]"); // first load of 5, first consume
  EXPECT_EQ(t.rows[t.flows[0].src.row].slices[t.flows[0].src.slice].begin_cycles, 0u);
  EXPECT_EQ(t.rows[t.flows[1].dst.row].label, "consumer[wg1]");
  EXPECT_EQ(t.unpaired_flows, 2u); // load of 6, consume of 7
}

// ---- exports ----

TEST(SliceExports, PageRowsCarryLabelsAndTheGroupsTheirSlices) {
  const DecodeMap map = warp_map(64);
  const Trace t = decode_bytes(map, warp_buffer(2).bytes);
  const json data = json::parse(test_support::embedded_data(export_html(map, t)));
  ASSERT_EQ(data["rows"].size(), 66u);
  EXPECT_EQ(data["rows"][0]["label"], "block");
  EXPECT_TRUE(data["rows"][0]["slice"].is_null());
  EXPECT_EQ(data["rows"][33 + 4]["label"], "warp[w3]");
  EXPECT_EQ(data["rows"][33 + 4]["slice"], 3);
  EXPECT_EQ(data["groups"][1]["slice_threads"], 32);
  EXPECT_EQ(data["groups"][1]["first_thread"], 0);
  EXPECT_FALSE(data["groups"][0].contains("slice_threads"));
  ASSERT_EQ(data["ctas"].size(), 2u);
  EXPECT_EQ(data["ctas"][1]["rows"].size(), 33u); // every warp row is laid out in its CTA
}

TEST(SliceExports, RunPageCarriesSliceRowLabelsOfItsLaunches) {
  RunTrace run;
  run.processes.push_back(RunProcess{});
  run.devices.push_back(RunDevice{});
  run.maps.push_back(warp_map(64));
  RunLaunch l;
  l.grid[0] = 2;
  l.block[0] = 1024;
  l.trace = decode_bytes(run.maps[0], warp_buffer(2).bytes);
  run.launches.push_back(std::move(l));
  const std::string html = export_run_html(run);
  const json overview = json::parse(test_support::embedded_data(html));
  EXPECT_EQ(overview["maps"][0]["groups"][1]["slice_threads"], 32);
  const json launch = json::parse(test_support::embedded_data(html, "cutrace-launch-0"));
  ASSERT_EQ(launch["rows"].size(), 66u);
  EXPECT_EQ(launch["rows"][33 + 32]["label"], "warp[w31]");
  EXPECT_EQ(launch["rows"][33 + 32]["slice"], 31);
}

TEST(SliceExports, PerfettoHasOneThreadPerSliceRowNamedByItsLabel) {
  const DecodeMap map = warp_map(64);
  const Trace t = decode_bytes(map, warp_buffer(2).bytes);
  const json doc = json::parse(export_perfetto(map, t));
  std::map<uint64_t, std::set<std::string>> threads; // pid -> thread names
  for (const json &e : doc["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name")
      threads[e["pid"]].insert(e["args"]["name"].get<std::string>());
  ASSERT_EQ(threads.size(), 2u);
  for (const auto &[pid, names] : threads) {
    EXPECT_EQ(names.size(), 33u) << "CTA process " << pid;
    EXPECT_TRUE(names.count("block / main"));
    for (uint32_t w = 0; w < 32; ++w)
      EXPECT_TRUE(names.count("warp[w" + std::to_string(w) + "] / main")) << w;
  }
}

TEST(SliceExports, SummaryGivesBusyPerSliceAndImbalanceBetweenSlices) {
  const DecodeMap map = warp_map(64);
  const Trace t = decode_bytes(map, warp_buffer(2).bytes);
  const TraceSummary s = summarize(map, t);
  ASSERT_EQ(s.slice_groups.size(), 1u);
  const SliceGroupSummary &g = s.slice_groups[0];
  EXPECT_EQ(g.name, "warp");
  ASSERT_EQ(g.slices.size(), 32u);
  for (uint32_t w = 0; w < 32; ++w) {
    const SliceRowSummary &r = g.slices[w];
    EXPECT_EQ(r.label, "warp[w" + std::to_string(w) + "]");
    EXPECT_EQ(r.rows, 2u);
    EXPECT_EQ(r.events, 2 * 3 * rows_of_warp(w)); // per CTA: row, reduce, done per matrix row
    EXPECT_NEAR(r.busy_ns, 2 * 250.0 * rows_of_warp(w), 1e-6) << r.label;
    EXPECT_NEAR(r.span_ns, 2 * 2500.0, 1e-6);
  }
  // Warps do 1..4 matrix rows: busy 500..2000 ns over both CTAs, median the 16th smallest.
  EXPECT_NEAR(g.busy_ns.min, 500, 1e-6);
  EXPECT_NEAR(g.busy_ns.median, 1000, 1e-6);
  EXPECT_NEAR(g.busy_ns.max, 2000, 1e-6);
  EXPECT_NEAR(g.busy_fraction.max, 0.4, 1e-9);
  EXPECT_EQ(g.events.min, 6);
  EXPECT_EQ(g.events.median, 12);
  EXPECT_EQ(g.events.max, 24);
  ASSERT_EQ(s.groups.size(), 2u);
  EXPECT_EQ(s.groups[1].ctas, 2u);
  EXPECT_EQ(s.groups[1].rows, 64u);
  const std::string text = format_summary(s);
  for (const char *needle :
       {"slices of TRACE_GROUPS groups", "warp[w0]", "warp[w31]",
        "imbalance between the slices of a group", "  group  ctas  rows  busy ns"})
    EXPECT_NE(text.find(needle), std::string::npos) << needle << "\n" << text;
}

TEST(SliceExports, SummaryOfAKernelWithoutSlicedGroupsHasNoSliceTables) {
  const DecodeMap map = *parse_decode_map(
      R"({"format_version":1,"kernel":"k","max_events":4,"clock":"clock64",
 "groups":[{"index":0,"name":"a","lead":"0"}],"lanes":["main"],"sites":[]})");
  BufferBuilder b(1, 1, 4);
  b.start(0, 0, 100, 1000);
  b.end(0, 0, 5000, 9000);
  const std::string text = format_summary(summarize(map, decode_bytes(map, b.bytes)));
  EXPECT_EQ(text.find("slices of TRACE_GROUPS"), std::string::npos);
  EXPECT_NE(text.find("  group  ctas  busy ns  life ns  busy\n"), std::string::npos) << text;
}

TEST(SliceExports, LaunchJsonNamesSliceRowsAndTheirStatistics) {
  const DecodeMap map = warp_map(64);
  const Trace t = decode_bytes(map, warp_buffer(1).bytes);
  const json doc = json::parse(trace_summary_json(map, t));
  const json &row = doc["rows"][5];
  EXPECT_EQ(row["label"], "warp[w4]");
  EXPECT_EQ(row["slice"], 4);
  EXPECT_EQ(row["first_thread"], 128);
  EXPECT_EQ(row["row_in_cta"], 5);
  EXPECT_FALSE(doc["rows"][0].contains("label"));
  ASSERT_EQ(doc["slice_groups"].size(), 1u);
  EXPECT_EQ(doc["slice_groups"][0]["slices"].size(), 32u);
  EXPECT_EQ(doc["slice_groups"][0]["events"]["max"], 12);
}

TEST(SliceExports, RunPerfettoNamesTheSliceRowOfEachEvent) {
  RunTrace run;
  run.processes.push_back(RunProcess{});
  run.devices.push_back(RunDevice{});
  run.maps.push_back(warp_map(64));
  RunLaunch l;
  l.grid[0] = 1;
  l.block[0] = 1024;
  l.trace = decode_bytes(run.maps[0], warp_buffer(1).bytes);
  run.launches.push_back(std::move(l));
  const json doc = json::parse(export_run_perfetto(run));
  std::set<std::string> rows;
  size_t block_events = 0;
  for (const json &e : doc["traceEvents"])
    if (e["ph"] == "X" && e.contains("args") && e["args"].contains("group")) {
      if (e["args"]["group"] == "warp")
        rows.insert(e["args"]["row"].get<std::string>());
      else
        block_events += !e["args"].contains("row"); // a TRACE_GROUP row has no slice label
    }
  EXPECT_EQ(rows.size(), 32u);
  EXPECT_TRUE(rows.count("warp[w17]"));
  EXPECT_EQ(block_events, 1u);
}

TEST(SliceExports, RunSummaryGivesEachSlicedKernelsImbalance) {
  RunTrace run;
  run.processes.push_back(RunProcess{});
  run.devices.push_back(RunDevice{});
  run.maps.push_back(warp_map(64));
  for (uint32_t i = 0; i < 2; ++i) {
    RunLaunch l;
    l.sequence = i;
    l.grid[0] = 2;
    l.block[0] = 1024;
    const BufferBuilder b = warp_buffer(2);
    l.trace = decode_bytes(run.maps[0], b.bytes);
    l.begin_ns = 10'000.0 * i;
    l.end_ns = l.begin_ns + 2500;
    run.launches.push_back(std::move(l));
  }
  const RunSummary s = summarize_run(run);
  ASSERT_EQ(s.devices.size(), 1u);
  ASSERT_EQ(s.devices[0].kernels.size(), 1u);
  const RunKernelSummary &k = s.devices[0].kernels[0];
  ASSERT_EQ(k.slice_groups.size(), 1u);
  EXPECT_EQ(k.slice_groups[0].slices[0].rows, 4u); // 2 launches x 2 CTAs
  EXPECT_NEAR(k.slice_groups[0].busy_ns.max, 4 * 1000.0, 1e-6);
  EXPECT_NE(run_summary(run).find("kernel rownorm, slices of TRACE_GROUPS groups"),
            std::string::npos)
      << run_summary(run);
  const json doc = json::parse(run_summary_json(run));
  EXPECT_EQ(doc["devices"][0]["kernels"][0]["slice_groups"][0]["events"]["min"], 12);
}

} // namespace
} // namespace cutrace
