// The two kernels of examples/ with TRACE_GROUPS rows, recorded on an NVIDIA H200 by
// test/device/h200_issue14.sh on reduced grids (test/data/h200/issue14/): each example's
// single-launch file (<kernel>.ctrace) and the run file of the same program. Expected numbers
// come from the example sources and the recorded grid, never from the decoder:
//   examples/layernorm: --rows 512 --ctas 2, 1024-thread CTAs, TRACE_GROUPS("warp", 32).
//   examples/hopper_pipeline: --m 256 --n 256 --k 512 --ctas 2, 384-thread CTAs,
//     TRACE_GROUP("producer", 0) + TRACE_GROUPS("consumer", 128, 128), TRACE_DAG("load",
//     "compute").
#include <cutrace/ctrace.h>
#include <cutrace/export.h>
#include <cutrace/run_trace.h>

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>
#include "support/tree_paths.h"


namespace cutrace {
namespace {

const std::string kDir = std::string(CUTRACE_TEST_DATA) + "/h200/issue14/";

// ---- examples/layernorm, --rows 512 --ctas 2 ----
constexpr uint32_t kLnCtas = 2;
constexpr uint32_t kLnWarps = 1024 / 32; // kThreads / 32: one row of the trace per warp
constexpr int kLnDataRows = 512;
// Warp w of CTA b takes data rows b * 32 + w + j * (2 * 32), j = 0, 1, ...: 512 / 64 = 8 each.
constexpr int kLnRowsPerWarp = kLnDataRows / int(kLnCtas * kLnWarps);
// Per data row: load, reduce, normalize, store ranges (lane "phase").
constexpr int kLnPhases = 4;
// TRACE_RANGE_IF / TRACE_RECORD_IF(row % 8 == 0): row % 8 = (b * 32 + w + j * 64) % 8 = w % 8,
// so warps 0, 8, 16, 24 sample all 8 of their rows (one "row" range and one "sample" instant
// each) and the other 28 warps none.
constexpr bool ln_samples(uint32_t warp) { return warp % 8 == 0; }
// Slices and instants per warp row: 8 * 4 = 32, plus 8 + 8 = 16 when the warp samples: 48.
constexpr uint32_t ln_events(uint32_t warp) {
  return kLnRowsPerWarp * kLnPhases + (ln_samples(warp) ? 2 * kLnRowsPerWarp : 0);
}
// Records per warp row (a range is a BEGIN and an END record, an instant one): 8 * 4 * 2 = 64,
// plus 8 * 2 + 8 = 24 when the warp samples: 88.
constexpr uint32_t ln_records(uint32_t warp) {
  return kLnRowsPerWarp * kLnPhases * 2 + (ln_samples(warp) ? 3 * kLnRowsPerWarp : 0);
}

// ---- examples/hopper_pipeline, --m 256 --n 256 --k 512 --ctas 2 ----
constexpr uint32_t kHpCtas = 2;
constexpr int kHpTiles = (256 / 64) * (256 / 128);      // (M / kBlockM) * (N / kBlockN) = 8
constexpr int kHpTilesPerCta = kHpTiles / int(kHpCtas); // tile = blockIdx.x + local * gridDim.x
constexpr int kHpKTiles = 512 / 64;                     // K / kBlockK = 8 stages per tile
constexpr int kHpStages = kHpTilesPerCta * kHpKTiles;   // 32 per CTA, numbered 0..31
constexpr int kHpRing = 4;                              // kStages: wait_empty from stage 4 on
// 3 warpgroups: producer (1 row) + slices_in(384, 128, 128) = 2 consumer rows.
constexpr uint32_t kHpRowsPerCta = 1 + (384 - 128) / 128;

struct Launch {
  DecodeMap map;
  Trace trace;
};

Launch load(const std::string &file) {
  Launch l;
  Expected<Ctrace> raw = read_ctrace_file(kDir + file);
  EXPECT_TRUE(raw) << raw.error;
  if (!raw)
    return l;
  Expected<DecodeMap> map = parse_decode_map(raw->map_json);
  EXPECT_TRUE(map) << map.error;
  Expected<Trace> trace = decode_ctrace(*raw);
  EXPECT_TRUE(trace) << trace.error;
  if (map)
    l.map = *map;
  if (trace)
    l.trace = *trace;
  return l;
}

RunTrace load_run(const std::string &file) {
  Expected<Run> run = read_run_file(kDir + file);
  EXPECT_TRUE(run) << run.error;
  if (!run)
    return {};
  EXPECT_TRUE(run->problems.empty()) << run->problems.front();
  Expected<RunTrace> trace = decode_run(*run, file);
  EXPECT_TRUE(trace) << trace.error;
  return trace ? std::move(*trace) : RunTrace{};
}

const Row *row_labelled(const Trace &t, uint32_t cta, const std::string &label) {
  for (const Row &r : t.rows)
    if (r.cta == cta && r.label == label)
      return &r;
  return nullptr;
}

std::vector<const Slice *> named(const Row &r, const std::string &name) {
  std::vector<const Slice *> out;
  for (const Slice &s : r.slices)
    if (s.name == name)
      out.push_back(&s);
  std::sort(out.begin(), out.end(),
            [](const Slice *a, const Slice *b) { return a->begin_cycles < b->begin_cycles; });
  return out;
}

std::string warp_label(uint32_t w) { return "warp[w" + std::to_string(w) + "]"; }

TEST(LayernormFixture, DecodesWithoutProblemsOnTheRecordedGrid) {
  const Launch l = load("layernorm_rows.ctrace");
  EXPECT_TRUE(l.trace.ok()) << l.trace.problems.front();
  EXPECT_EQ(l.trace.kernel, "layernorm_rows");
  EXPECT_EQ(l.trace.header.num_ctas(), kLnCtas);
  EXPECT_EQ(l.trace.header.block[0] * l.trace.header.block[1] * l.trace.header.block[2], 1024u);
  EXPECT_EQ(l.trace.header.num_groups, kLnWarps) << "header word 2: rows per CTA";
  EXPECT_EQ(l.trace.rows.size(), size_t(kLnCtas * kLnWarps));
}

TEST(LayernormFixture, EveryWarpOfEveryCtaHasItsOwnRow) {
  const Launch l = load("layernorm_rows.ctrace");
  for (uint32_t cta = 0; cta < kLnCtas; ++cta)
    for (uint32_t w = 0; w < kLnWarps; ++w) {
      const Row *r = row_labelled(l.trace, cta, warp_label(w));
      ASSERT_NE(r, nullptr) << "CTA " << cta << " " << warp_label(w);
      EXPECT_EQ(r->row_in_cta, w);
      EXPECT_EQ(r->slice, w);
      EXPECT_EQ(r->first_thread, std::optional<uint32_t>(w * 32)) << "the warp's lane 0 writes";
      EXPECT_TRUE(r->started && r->closed) << "CTA " << cta << " " << r->label;
    }
}

TEST(LayernormFixture, EachWarpRowHoldsFourPhasesPerDataRowAndSamplesEvery8th) {
  const Launch l = load("layernorm_rows.ctrace");
  for (uint32_t cta = 0; cta < kLnCtas; ++cta)
    for (uint32_t w = 0; w < kLnWarps; ++w) {
      const Row *r = row_labelled(l.trace, cta, warp_label(w));
      ASSERT_NE(r, nullptr);
      const std::string where = "CTA " + std::to_string(cta) + " " + r->label;
      EXPECT_EQ(r->attempted, ln_records(w)) << where;
      EXPECT_EQ(r->stored, ln_records(w)) << where;
      EXPECT_EQ(r->dropped, 0u) << where;
      EXPECT_EQ(r->slices.size() + r->instants.size(), size_t(ln_events(w))) << where;
      // The data rows this warp normalised, in the order it took them.
      std::vector<int32_t> data_rows;
      for (int j = 0; j < kLnRowsPerWarp; ++j)
        data_rows.push_back(int32_t(cta * kLnWarps + w + j * kLnCtas * kLnWarps));
      for (const char *phase : {"load", "reduce", "normalize", "store"}) {
        std::vector<int32_t> payloads;
        for (const Slice *s : named(*r, phase))
          payloads.push_back(s->payload);
        EXPECT_EQ(payloads, data_rows) << where << " " << phase;
      }
      std::vector<int32_t> sampled;
      for (const Slice *s : named(*r, "row"))
        sampled.push_back(s->payload);
      EXPECT_EQ(sampled, ln_samples(w) ? data_rows : std::vector<int32_t>{}) << where;
      EXPECT_EQ(r->instants.size(), ln_samples(w) ? size_t(kLnRowsPerWarp) : 0u) << where;
      for (const Instant &i : r->instants)
        EXPECT_EQ(i.name, "sample");
    }
}

TEST(LayernormFixture, PhasesOfOneDataRowRunInSourceOrder) {
  const Launch l = load("layernorm_rows.ctrace");
  for (const Row &r : l.trace.rows) {
    const auto load = named(r, "load"), reduce = named(r, "reduce"),
               normalize = named(r, "normalize"), store = named(r, "store");
    ASSERT_EQ(load.size(), size_t(kLnRowsPerWarp)) << r.label;
    ASSERT_EQ(store.size(), load.size());
    for (size_t j = 0; j < load.size(); ++j) {
      EXPECT_LE(load[j]->end_cycles, reduce[j]->begin_cycles) << r.label;
      EXPECT_LE(reduce[j]->end_cycles, normalize[j]->begin_cycles) << r.label;
      EXPECT_LE(normalize[j]->end_cycles, store[j]->begin_cycles) << r.label;
      if (j + 1 < load.size())
        EXPECT_LE(store[j]->end_cycles, load[j + 1]->begin_cycles) << r.label;
    }
  }
}

TEST(HopperPipelineFixture, DecodesWithoutProblemsOnTheRecordedGrid) {
  const Launch l = load("ws_wgmma_gemm.ctrace");
  EXPECT_TRUE(l.trace.ok()) << l.trace.problems.front();
  EXPECT_EQ(l.trace.kernel, "ws_wgmma_gemm");
  EXPECT_EQ(l.trace.header.num_ctas(), kHpCtas);
  EXPECT_EQ(l.trace.header.num_groups, kHpRowsPerCta) << "header word 2: rows per CTA";
  EXPECT_EQ(l.trace.rows.size(), size_t(kHpCtas * kHpRowsPerCta));
}

TEST(HopperPipelineFixture, ProducerRowLoadsEveryStageInOrder) {
  const Launch l = load("ws_wgmma_gemm.ctrace");
  for (uint32_t cta = 0; cta < kHpCtas; ++cta) {
    const Row *p = row_labelled(l.trace, cta, "producer");
    ASSERT_NE(p, nullptr) << "CTA " << cta;
    EXPECT_FALSE(p->sliced());
    EXPECT_EQ(p->row_in_cta, 0u);
    const auto loads = named(*p, "load"), waits = named(*p, "wait_empty");
    ASSERT_EQ(loads.size(), size_t(kHpStages)) << "CTA " << cta;
    for (int stage = 0; stage < kHpStages; ++stage)
      EXPECT_EQ(loads[stage]->payload, stage) << "CTA " << cta;
    ASSERT_EQ(waits.size(), size_t(kHpStages - kHpRing)) << "CTA " << cta;
    for (size_t i = 0; i < waits.size(); ++i)
      EXPECT_EQ(waits[i]->payload, int32_t(i) + kHpRing) << "CTA " << cta;
    EXPECT_EQ(p->slices.size(), loads.size() + waits.size());
  }
}

TEST(HopperPipelineFixture, ConsumerWarpgroupsTakeTurnsTileByTile) {
  // Consumer c (row consumer[wg(c + 1)]) takes the CTA's local tiles c, c + 2: stages
  // local * 8 .. local * 8 + 7. The named barriers let the next tile's consumer start its k-loop
  // only when this one's is done, so in time the computes come in runs of 8 that alternate rows.
  const Launch l = load("ws_wgmma_gemm.ctrace");
  for (uint32_t cta = 0; cta < kHpCtas; ++cta) {
    std::vector<std::pair<const Slice *, std::string>> computes;
    for (const char *label : {"consumer[wg1]", "consumer[wg2]"}) {
      const Row *r = row_labelled(l.trace, cta, label);
      ASSERT_NE(r, nullptr) << "CTA " << cta << " " << label;
      EXPECT_TRUE(r->sliced());
      EXPECT_EQ(r->slices.size(), size_t(kHpTilesPerCta / 2 * (2 * kHpKTiles + 1)))
          << "wait + compute per stage, an epilogue per tile";
      for (const Slice *s : named(*r, "compute"))
        computes.emplace_back(s, label);
    }
    ASSERT_EQ(computes.size(), size_t(kHpStages));
    std::sort(computes.begin(), computes.end(), [](const auto &a, const auto &b) {
      return a.first->begin_cycles < b.first->begin_cycles;
    });
    for (int i = 0; i < kHpStages; ++i) {
      const int local = i / kHpKTiles;
      EXPECT_EQ(computes[i].first->payload, i) << "CTA " << cta;
      EXPECT_EQ(computes[i].second, local % 2 ? "consumer[wg2]" : "consumer[wg1]")
          << "CTA " << cta << " stage " << i;
      if (i > 0 && i % kHpKTiles == 0) // the hand-over: the other warpgroup's tile starts after
        EXPECT_LE(computes[i - 1].first->end_cycles, computes[i].first->begin_cycles)
            << "CTA " << cta << " tile " << local;
    }
  }
}

TEST(HopperPipelineFixture, EachLoadHasExactlyOneArrowToTheComputeOfItsStage) {
  const Launch l = load("ws_wgmma_gemm.ctrace");
  const Trace &t = l.trace;
  EXPECT_EQ(t.backward_flows, 0u);
  EXPECT_EQ(t.unpaired_flows, 0u);
  ASSERT_EQ(t.flows.size(), size_t(kHpCtas * kHpStages));
  std::set<std::pair<uint32_t, uint32_t>> sources, targets;
  for (const Flow &f : t.flows) {
    const Row &src_row = t.rows[f.src.row], &dst_row = t.rows[f.dst.row];
    const Slice &src = src_row.slices[f.src.slice], &dst = dst_row.slices[f.dst.slice];
    EXPECT_EQ(src.name, "load");
    EXPECT_EQ(dst.name, "compute");
    EXPECT_EQ(src_row.label, "producer");
    EXPECT_EQ(src_row.cta, dst_row.cta);
    EXPECT_EQ(src.payload, dst.payload) << "paired by stage";
    const int local = dst.payload / kHpKTiles; // the right consumer row, across the two
    EXPECT_EQ(dst_row.label, local % 2 ? "consumer[wg2]" : "consumer[wg1]");
    EXPECT_LE(dst.begin_cycles, f.at_cycles);
    EXPECT_LE(f.at_cycles, dst.end_cycles);
    EXPECT_TRUE(sources.insert({f.src.row, f.src.slice}).second) << "two arrows from one load";
    EXPECT_TRUE(targets.insert({f.dst.row, f.dst.slice}).second) << "two arrows into one compute";
  }
  EXPECT_EQ(sources.size(), size_t(kHpCtas * kHpStages)) << "every load has its arrow";
}

TEST(Issue14Fixture, EveryRowHasAMeasuredClockRate) {
  // 1.98 GHz is the H200's peak SM clock; the wgmma GEMM ran at about 1.8 GHz.
  for (const char *file : {"layernorm_rows.ctrace", "ws_wgmma_gemm.ctrace"}) {
    const Launch l = load(file);
    ASSERT_FALSE(l.trace.rows.empty()) << file;
    for (const Row &r : l.trace.rows) {
      EXPECT_EQ(r.ghz_source, RateSource::measured) << file << " " << r.label;
      EXPECT_GT(r.ghz, 1.0) << file << " " << r.label;
      EXPECT_LT(r.ghz, 2.0) << file << " " << r.label;
    }
  }
}

// The run file holds the same launch as the single-launch file (CUTRACE_PER_LAUNCH=1 wrote both).
void expect_same_rows(const Trace &single, const Trace &in_run) {
  ASSERT_EQ(in_run.rows.size(), single.rows.size());
  for (size_t i = 0; i < single.rows.size(); ++i) {
    const Row &a = single.rows[i], &b = in_run.rows[i];
    EXPECT_EQ(b.label, a.label) << i;
    EXPECT_EQ(b.cta, a.cta) << i;
    EXPECT_EQ(b.row_in_cta, a.row_in_cta) << i;
    EXPECT_EQ(b.smid, a.smid) << i;
    EXPECT_EQ(b.start_cycles, a.start_cycles) << i;
    EXPECT_EQ(b.end_cycles, a.end_cycles) << i;
    ASSERT_EQ(b.slices.size(), a.slices.size()) << i;
    for (size_t s = 0; s < a.slices.size(); ++s) {
      EXPECT_EQ(b.slices[s].name, a.slices[s].name);
      EXPECT_EQ(b.slices[s].payload, a.slices[s].payload);
      EXPECT_EQ(b.slices[s].begin_cycles, a.slices[s].begin_cycles);
      EXPECT_EQ(b.slices[s].end_cycles, a.slices[s].end_cycles);
    }
    EXPECT_EQ(b.instants.size(), a.instants.size()) << i;
  }
  EXPECT_EQ(in_run.flows.size(), single.flows.size());
}

TEST(Issue14Fixture, RunFileDecodesToTheSameRowsAsTheSingleLaunchFile) {
  for (const auto &[run_file, single_file] :
       {std::pair{"layernorm_run.ctrace", "layernorm_rows.ctrace"},
        std::pair{"hopper_run.ctrace", "ws_wgmma_gemm.ctrace"}}) {
    const RunTrace run = load_run(run_file);
    const Launch single = load(single_file);
    ASSERT_EQ(run.launches.size(), 1u) << run_file << ": one launch of the example's kernel";
    const RunLaunch &launch = run.launches[0];
    EXPECT_TRUE(launch.detail);
    EXPECT_TRUE(launch.trace.ok()) << launch.trace.problems.front();
    EXPECT_EQ(launch.trace.kernel, single.trace.kernel);
    SCOPED_TRACE(run_file);
    expect_same_rows(single.trace, launch.trace);
  }
}

// The HTML page's data (the JSON in <script id="cutrace-data">).
nlohmann::json html_data(const Launch &l) {
  const std::string page = export_html(l.map, l.trace);
  const std::string open = "<script type=\"application/json\" id=\"cutrace-data\">";
  const size_t begin = page.find(open);
  EXPECT_NE(begin, std::string::npos);
  if (begin == std::string::npos)
    return {};
  const size_t end = page.find("</script>", begin);
  return nlohmann::json::parse(page.substr(begin + open.size(), end - begin - open.size()));
}

TEST(Issue14Fixture, HtmlLabelsEveryRowOfEveryCta) {
  for (const char *file : {"layernorm_rows.ctrace", "ws_wgmma_gemm.ctrace"}) {
    const Launch l = load(file);
    const nlohmann::json data = html_data(l);
    ASSERT_EQ(data["rows"].size(), l.trace.rows.size()) << file;
    std::set<std::pair<uint32_t, std::string>> labels; // (cta, label)
    for (size_t i = 0; i < l.trace.rows.size(); ++i) {
      EXPECT_EQ(data["rows"][i]["label"], l.trace.rows[i].label) << file << " row " << i;
      labels.insert({data["rows"][i]["cta"].get<uint32_t>(), data["rows"][i]["label"]});
    }
    EXPECT_EQ(labels.size(), l.trace.rows.size()) << file << ": a label names one row of a CTA";
  }
  const nlohmann::json ln = html_data(load("layernorm_rows.ctrace"));
  for (uint32_t w = 0; w < kLnWarps; ++w)
    EXPECT_EQ(std::count_if(ln["rows"].begin(), ln["rows"].end(),
                            [&](const nlohmann::json &r) { return r["label"] == warp_label(w); }),
              std::ptrdiff_t(kLnCtas))
        << warp_label(w);
  EXPECT_EQ(html_data(load("ws_wgmma_gemm.ctrace"))["counts"]["flows"], kHpCtas * kHpStages);
}

TEST(Issue14Fixture, PerfettoGivesEachRowItsOwnTracks) {
  // A process per CTA, a thread per (row, lane) named "<row label> / <lane>": every row has its
  // tracks, and they hold exactly that row's slices.
  for (const char *file : {"layernorm_rows.ctrace", "ws_wgmma_gemm.ctrace"}) {
    const Launch l = load(file);
    const nlohmann::json doc = nlohmann::json::parse(export_perfetto(l.map, l.trace));
    std::map<std::pair<int, int>, std::string> row_of_thread; // (pid, tid) -> row label
    for (const nlohmann::json &e : doc["traceEvents"])
      if (e["ph"] == "M" && e["name"] == "thread_name") {
        const std::string name = e["args"]["name"];
        row_of_thread[{e["pid"], e["tid"]}] = name.substr(0, name.find(" / "));
      }
    std::map<std::pair<int, std::string>, size_t> slices; // (pid, row label) -> X events
    for (const nlohmann::json &e : doc["traceEvents"])
      if (e["ph"] == "X")
        ++slices[{e["pid"], row_of_thread.at({e["pid"], e["tid"]})}];
    std::set<std::pair<int, std::string>> rows_with_tracks;
    for (const auto &[thread, label] : row_of_thread)
      rows_with_tracks.insert({thread.first, label});
    EXPECT_EQ(rows_with_tracks.size(), l.trace.rows.size()) << file;
    for (const Row &r : l.trace.rows) {
      const std::pair<int, std::string> key{int(r.cta) + 1, r.label}; // pid = CTA + 1
      EXPECT_EQ(rows_with_tracks.count(key), 1u) << file << " CTA " << r.cta << " " << r.label;
      EXPECT_EQ(slices[key], r.slices.size()) << file << " CTA " << r.cta << " " << r.label;
    }
  }
}

} // namespace
} // namespace cutrace

namespace cutrace {
namespace {

// The "clock rate per row" table of trace-view --summary, header included. Past 16 rows it lists
// the rows whose rate was not measured on the row itself: every row is marked so here, so that
// each is listed.
std::vector<std::string> rate_table(const std::string &file) {
  const Launch l = load(file);
  TraceSummary summary = summarize(l.map, l.trace);
  for (TraceSummary::RowRate &r : summary.rates)
    r.source = RateSource::sm_pooled;
  const std::string text = format_summary(summary);
  const size_t begin = text.find("clock rate per row");
  EXPECT_NE(begin, std::string::npos);
  std::vector<std::string> lines;
  for (size_t at = text.find('\n', begin) + 1; at < text.size() && text[at] != '\n';) {
    const size_t end = text.find('\n', at);
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

TEST(Issue14Fixture, SummaryRateTableNamesEachSliceRowByItsLabel) {
  // Every warp row is group 0: only the label says which warp a rate belongs to.
  const std::vector<std::string> ln = rate_table("layernorm_rows.ctrace");
  ASSERT_EQ(ln.size(), 2 + size_t(kLnCtas * kLnWarps)); // header, rule, a line per row
  EXPECT_NE(ln[0].find("label"), std::string::npos) << ln[0];
  for (uint32_t row = 0; row < kLnCtas * kLnWarps; ++row)
    EXPECT_NE(ln[2 + row].find(" " + warp_label(row % kLnWarps) + " "), std::string::npos)
        << ln[2 + row];
  const std::vector<std::string> hp = rate_table("ws_wgmma_gemm.ctrace");
  ASSERT_EQ(hp.size(), 2 + size_t(kHpCtas * kHpRowsPerCta));
  for (uint32_t row = 0; row < kHpCtas * kHpRowsPerCta; ++row) {
    const char *label[] = {" producer ", " consumer[wg1] ", " consumer[wg2] "};
    EXPECT_NE(hp[2 + row].find(label[row % kHpRowsPerCta]), std::string::npos) << hp[2 + row];
  }
}

// ---- test/inputs/traced/loop_groups.cu on the H200: loop_groups<<<4, 64>>>(a, out, 64) ----
// "producer" is declared in warp 0's block and again inside the k-loop (inside the
// `if (threadIdx.x == 0)` that issues each load): one row per CTA that keeps every iteration.
TEST(LoopGroupsFixture, GroupDeclaredInTheKLoopKeepsEveryIterationInOneRow) {
  constexpr uint32_t kCtas = 4;
  constexpr int kKTiles = 64;
  Launch l = load("loop_groups.ctrace");
  ASSERT_TRUE(l.trace.ok()) << l.trace.problems.front();
  // Two names, two rows per CTA: the loop's re-declaration does not add a row.
  ASSERT_EQ(l.map.groups.size(), 2u);
  ASSERT_EQ(l.trace.rows.size(), kCtas * 2);
  for (uint32_t cta = 0; cta < kCtas; ++cta) {
    const Row *producer = row_labelled(l.trace, cta, "producer");
    const Row *consumer = row_labelled(l.trace, cta, "consumer");
    ASSERT_NE(producer, nullptr);
    ASSERT_NE(consumer, nullptr);
    // 1 prologue instant + 64 "issued" instants, and a tma_issue range per k-tile, in order.
    const std::vector<const Slice *> issues = named(*producer, "tma_issue");
    ASSERT_EQ(issues.size(), size_t(kKTiles)) << "cta " << cta;
    for (int kt = 0; kt < kKTiles; ++kt)
      EXPECT_EQ(issues[size_t(kt)]->payload, kt);
    size_t prologue = 0, issued = 0;
    for (const Instant &i : producer->instants) {
      prologue += i.name == "prologue";
      issued += i.name == "issued";
    }
    EXPECT_EQ(prologue, 1u);
    EXPECT_EQ(issued, size_t(kKTiles));
    EXPECT_EQ(producer->dropped, 0u);
    EXPECT_EQ(named(*consumer, "mma").size(), size_t(kKTiles));
  }
}

} // namespace
} // namespace cutrace
