// Comparing two traces (cutrace/diff.h; docs/analysis.md, "Comparing two traces") on synthetic
// launches with known changes: per-CTA totals, impact, sort order, pooling, the noise model, and
// the JSON; then on the committed H200 fixtures of one build and of a changed build.
#include <cutrace/ctrace.h>
#include <cutrace/diff.h>
#include <cutrace/run_trace.h>

#include "support/run_builder.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <set>
#include <sstream>
#include "support/tree_paths.h"


namespace cutrace {
namespace {

using test_support::BufferBuilder;
constexpr auto B = RecordKind::begin, E = RecordKind::end, I = RecordKind::instant;

// The step kernel of test/support/run_builder.h: load (group block) -> compute (group math), tick.
const DecodeMap &step() {
  static const DecodeMap map = test_support::step_map();
  return map;
}

// `ctas` CTAs at 1 GHz (cycles = ns), each with 4 iterations i: load [1000i+100, 1000i+300] and
// compute [1000i+400, 1000i+400+compute_cycles] with a tick at 1000i+450; rows live 5000 ns.
// compute begins 100 ns after load ends: every hand-off has gap 100 and wait 0.
Trace step_trace(uint32_t ctas, uint64_t compute_cycles = 300) {
  BufferBuilder b(ctas, 2, 16);
  for (uint32_t c = 0; c < ctas; ++c) {
    const uint64_t ns0 = 1'000'000 + 10'000 * c, cyc0 = 50'000 + 10'000 * c;
    for (uint32_t g = 0; g < 2; ++g)
      b.start(c, g, ns0, cyc0, c % 4);
    for (uint64_t i = 0; i < 4; ++i) {
      b.event(c, 0, B, 0, int32_t(i), cyc0 + 1000 * i + 100);
      b.event(c, 0, E, 0, int32_t(i), cyc0 + 1000 * i + 300);
      b.event(c, 1, B, 1, int32_t(i), cyc0 + 1000 * i + 400);
      b.event(c, 1, I, 2, int32_t(i), cyc0 + 1000 * i + 450);
      b.event(c, 1, E, 1, int32_t(i), cyc0 + 1000 * i + 400 + compute_cycles);
    }
    for (uint32_t g = 0; g < 2; ++g)
      b.end(c, g, ns0 + 5000, cyc0 + 5000);
  }
  Trace t = decode(step(), b.bytes.data(), b.bytes.size());
  EXPECT_TRUE(t.ok()) << t.problems.front();
  return t;
}

DiffSide side(const std::string &label, std::vector<const Trace *> launches) {
  return DiffSide{label, std::move(launches)};
}

const DiffRow &row(const TraceDiff &d, DiffKind kind, const std::string &name) {
  for (const DiffRow &r : d.rows)
    if (r.kind == kind && r.name == name)
      return r;
  static DiffRow none;
  ADD_FAILURE() << "no row " << diff_kind_name(kind) << " " << name;
  return none;
}

TEST(Diff, TheWholeKernelLineGivesKernelAndCtaDurationsOfBothSides) {
  const Trace a = step_trace(3), b = step_trace(3, 400);
  const TraceDiff d = diff_traces(side("a", {&a}), side("b", {&b}));
  ASSERT_EQ(d.whole_kernel.size(), 3u);
  EXPECT_EQ(d.whole_kernel[0].what, "kernel p50");
  // CTA c lives [10000c, 10000c + 5000]: three CTAs, 25000 ns from first start to last end.
  EXPECT_DOUBLE_EQ(d.whole_kernel[0].a, 25000);
  EXPECT_EQ(d.whole_kernel[1].what, "CTA p50");
  EXPECT_DOUBLE_EQ(d.whole_kernel[1].a, 5000);
  EXPECT_DOUBLE_EQ(d.whole_kernel[2].b, 5000);
  for (const KernelFigure &f : d.whole_kernel)
    EXPECT_TRUE(f.within_noise) << f.what; // the rows' lives did not change
  EXPECT_NE(format_diff(d).find("\n  whole kernel: kernel p50 25000.0 -> 25000.0 ns (+0.0%, "
                                "noise: band ±5.0%)"),
            std::string::npos);
}

TEST(Diff, OneNameSlowerBy100CyclesIsTheOnlyChangeAndItsImpactIs400NsPerCta) {
  const Trace a = step_trace(3), b = step_trace(3, 400);
  const TraceDiff d = diff_traces(side("a", {&a}), side("b", {&b}));
  ASSERT_EQ(d.rows.size(), 5u); // compute, load, load -> compute wait and gap, tick
  const DiffRow &compute = d.rows.front();
  EXPECT_EQ(compute.kind, DiffKind::slice);
  EXPECT_EQ(compute.name, "compute");
  EXPECT_EQ(compute.a.count, 12u);
  EXPECT_EQ(compute.b.count, 12u);
  EXPECT_NEAR(compute.a.ns.mean, 300, 1e-6);
  EXPECT_NEAR(compute.b.ns.mean, 400, 1e-6);
  EXPECT_NEAR(compute.b.ns.p95, 400, 1e-6);
  EXPECT_NEAR(compute.a.total_per_cta_ns(), 1200, 1e-6); // 4 slices x 300 ns
  EXPECT_NEAR(compute.impact_ns, 400, 1e-6);             // 4 slices x 100 ns more, per CTA
  EXPECT_NEAR(compute.relative, 400.0 / 1200.0, 1e-9);
  EXPECT_FALSE(compute.within_noise);
  for (size_t i = 1; i < d.rows.size(); ++i) {
    EXPECT_EQ(d.rows[i].impact_ns, 0) << d.rows[i].name;
    EXPECT_EQ(d.rows[i].relative, 0) << d.rows[i].name;
    EXPECT_TRUE(d.rows[i].within_noise) << d.rows[i].name;
  }
  EXPECT_NEAR(row(d, DiffKind::handoff_gap, "load -> compute").a.ns.mean, 100, 1e-6);
  EXPECT_EQ(row(d, DiffKind::handoff_wait, "load -> compute").a.ns.total, 0);
  EXPECT_EQ(row(d, DiffKind::instant, "tick").b.count, 12u);
}

TEST(Diff, TotalsArePerCtaSoGridsOfDifferentSizesCompare) {
  const Trace a = step_trace(2), b = step_trace(6);
  const TraceDiff d = diff_traces(side("a", {&a}), side("b", {&b}));
  EXPECT_EQ(d.ctas_a, 2u);
  EXPECT_EQ(d.ctas_b, 6u);
  const DiffRow &compute = row(d, DiffKind::slice, "compute");
  EXPECT_EQ(compute.a.count, 8u);
  EXPECT_EQ(compute.b.count, 24u);
  EXPECT_EQ(compute.impact_ns, 0);
  EXPECT_TRUE(compute.within_noise);
  ASSERT_EQ(d.warnings.size(), 1u);
  EXPECT_EQ(d.warnings[0], "grids differ: 2x1x1 and 6x1x1 (totals are per CTA)");
}

TEST(Diff, RowsAreSortedByImpactThenInstantsLast) {
  // B: compute +50 per slice (impact 200); the other rows do not change.
  const Trace a = step_trace(2), b = step_trace(2, 350);
  const TraceDiff d = diff_traces(side("a", {&a}), side("b", {&b}));
  for (size_t i = 1; i < d.rows.size(); ++i) {
    const bool inst0 = d.rows[i - 1].kind == DiffKind::instant,
               inst1 = d.rows[i].kind == DiffKind::instant;
    EXPECT_LE(inst0, inst1);
    if (!inst0 && !inst1)
      EXPECT_GE(d.rows[i - 1].impact_ns, d.rows[i].impact_ns);
  }
  EXPECT_EQ(d.rows.back().kind, DiffKind::instant);
  EXPECT_NEAR(d.rows.front().impact_ns, 200, 1e-6);
}

TEST(Diff, LaunchesOfOneSideArePooled) {
  const Trace a1 = step_trace(2, 300), a2 = step_trace(2, 500), b = step_trace(4, 400);
  const TraceDiff d = diff_traces(side("a", {&a1, &a2}), side("b", {&b}));
  EXPECT_EQ(d.launches_a, 2u);
  EXPECT_EQ(d.ctas_a, 4u);
  const DiffRow &compute = row(d, DiffKind::slice, "compute");
  EXPECT_EQ(compute.a.count, 16u);
  EXPECT_NEAR(compute.a.ns.mean, 400, 1e-6);
  EXPECT_NEAR(compute.a.ns.p95, 500, 1e-6);
  EXPECT_NEAR(compute.a.total_per_cta_ns(), 1600, 1e-6); // (8 x 300 + 8 x 500) / 4 CTAs
  EXPECT_NEAR(compute.impact_ns, 0, 1e-6);
}

TEST(DiffNoise, ChangeWithinFactorTimesMeasuredNoiseIsMarkedNoise) {
  // C -> D: compute +2% (300 -> 306 cycles); factor 3: compute's threshold is 6%.
  const Trace c = step_trace(2, 300), dd = step_trace(2, 306);
  NoiseModel noise;
  add_noise_measurement(noise, side("c", {&c}), side("d", {&dd}));
  ASSERT_EQ(noise.sources.size(), 1u);
  EXPECT_EQ(noise.sources[0], "c vs d");
  bool measured = false;
  EXPECT_NEAR(noise.threshold(DiffKind::slice, "compute", &measured), 0.06, 1e-9);
  EXPECT_TRUE(measured);

  const Trace a = step_trace(2, 300), b5 = step_trace(2, 315), b10 = step_trace(2, 330);
  const DiffRow five =
      row(diff_traces(side("a", {&a}), side("b", {&b5}), noise), DiffKind::slice, "compute");
  EXPECT_NEAR(five.relative, 0.05, 1e-9);
  EXPECT_TRUE(five.measured_noise);
  EXPECT_TRUE(five.within_noise);
  const DiffRow ten =
      row(diff_traces(side("a", {&a}), side("b", {&b10}), noise), DiffKind::slice, "compute");
  EXPECT_NEAR(ten.relative, 0.10, 1e-9);
  EXPECT_FALSE(ten.within_noise);
}

TEST(DiffNoise, UnmeasuredRowsUseTheDefaultThresholdOfTheirKind) {
  const Trace a = step_trace(2, 300), b = step_trace(2, 312); // +4%: under the 5% default
  const TraceDiff d = diff_traces(side("a", {&a}), side("b", {&b}));
  const DiffRow &compute = row(d, DiffKind::slice, "compute");
  EXPECT_FALSE(compute.measured_noise);
  EXPECT_EQ(compute.threshold, NoiseModel::kDefaultSliceThreshold);
  EXPECT_TRUE(compute.within_noise);
  EXPECT_EQ(row(d, DiffKind::handoff_gap, "load -> compute").threshold,
            NoiseModel::kDefaultHandoffThreshold);
  const Trace b6 = step_trace(2, 318); // +6%
  EXPECT_FALSE(
      row(diff_traces(side("a", {&a}), side("b", {&b6})), DiffKind::slice, "compute").within_noise);
}

TEST(DiffNoise, ChangeBelowOneNsPerSliceIsNoiseEvenWithAZeroThreshold) {
  NoiseModel strict;
  strict.slice_threshold = strict.handoff_threshold = 0;
  const Trace a = step_trace(2, 300), b = step_trace(2, 301); // +1 ns per slice
  const DiffRow r =
      row(diff_traces(side("a", {&a}), side("b", {&b}), strict), DiffKind::slice, "compute");
  EXPECT_NEAR(r.impact_ns, 4, 1e-6);
  EXPECT_TRUE(r.within_noise);
  const Trace b2 = step_trace(2, 302);
  EXPECT_FALSE(
      row(diff_traces(side("a", {&a}), side("b", {&b2}), strict), DiffKind::slice, "compute")
          .within_noise);
}

TEST(Diff, NameOnlyInOneSideChangesBy100PercentOrIsNewAndIsNeverNoise) {
  Trace a = step_trace(2), b = step_trace(2);
  for (Row &r : b.rows)
    for (Slice &s : r.slices)
      if (s.name == "load")
        s.name = "load_v2";
  const TraceDiff d = diff_traces(side("a", {&a}), side("b", {&b}));
  const DiffRow &gone = row(d, DiffKind::slice, "load"),
                &added = row(d, DiffKind::slice, "load_v2");
  EXPECT_EQ(gone.b.count, 0u);
  EXPECT_EQ(gone.relative, -1);
  EXPECT_TRUE(std::isinf(added.relative) && added.relative > 0);
  EXPECT_FALSE(gone.within_noise);
  EXPECT_FALSE(added.within_noise);
  EXPECT_NE(format_diff(d).find("-100.0%"), std::string::npos);
  EXPECT_NE(format_diff(d).find(" new"), std::string::npos);
}

TEST(Diff, JsonHasEveryRowWithBothSidesAndTheNoiseModel) {
  const Trace a = step_trace(3), b = step_trace(3, 400);
  const nlohmann::json j =
      nlohmann::json::parse(diff_json(diff_traces(side("a", {&a}), side("b", {&b}))));
  EXPECT_EQ(j["kernel_a"], "step");
  EXPECT_EQ(j["a"]["ctas"], 3);
  EXPECT_EQ(j["noise"]["slice_threshold"], NoiseModel::kDefaultSliceThreshold);
  ASSERT_EQ(j["rows"].size(), 5u);
  const nlohmann::json &top = j["rows"][0];
  EXPECT_EQ(top["kind"], "slice");
  EXPECT_EQ(top["name"], "compute");
  EXPECT_DOUBLE_EQ(top["impact_ns"].get<double>(), 400);
  EXPECT_DOUBLE_EQ(top["a"]["total_per_cta_ns"].get<double>(), 1200);
  EXPECT_DOUBLE_EQ(top["b"]["mean_ns"].get<double>(), 400);
  EXPECT_DOUBLE_EQ(top["b"]["mean_cycles"].get<double>(), 400);
  EXPECT_EQ(top["within_noise"], false);
  EXPECT_FALSE(j["rows"][4].contains("mean_ns")); // the instant: counts only
  EXPECT_EQ(j["rows"][4]["kind"], "instant");
}

TEST(Diff, TableShowsTheChangedRowFirstWithoutTheNoiseMark) {
  const Trace a = step_trace(3), b = step_trace(3, 400);
  const std::string text = format_diff(diff_traces(side("a", {&a}), side("b", {&b})));
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line) && line.find("  name") != 0) {
  }
  ASSERT_TRUE(std::getline(lines, line));
  EXPECT_EQ(line.rfind("  compute ", 0), 0u) << line;
  EXPECT_NE(line.find("+400.0"), std::string::npos) << line;
  EXPECT_NE(line.find("+33.3%"), std::string::npos) << line;
  EXPECT_EQ(line.find("noise"), std::string::npos) << line;
  ASSERT_TRUE(std::getline(lines, line));
  EXPECT_NE(line.find("noise"), std::string::npos) << line;
}

// ---- The H200 fixtures: one build run twice, and the build with 16-byte producer loads ----

struct Loaded {
  RunTrace run;
  DiffSide side;
};

Loaded load(const std::string &relative) {
  const std::string path = std::string(CUTRACE_TEST_DATA) + "/h200/" + relative;
  Expected<Run> raw = read_run_file(path);
  EXPECT_TRUE(raw) << path << ": " << raw.error;
  Loaded l;
  l.run = *decode_run(*raw, path);
  for (const RunLaunch &launch : l.run.launches)
    l.side.launches.push_back(&launch.trace);
  l.side.label = relative;
  return l;
}

TEST(DiffFixture, TwoRunsOfOneBuildDifferOnlyWithinNoise) {
  const Loaded a = load("diff/ws_gemm_run1.ctrace"), b = load("diff/ws_gemm_run2.ctrace");
  const TraceDiff d = diff_traces(a.side, b.side);
  ASSERT_FALSE(d.rows.empty());
  for (const DiffRow &r : d.rows) {
    EXPECT_TRUE(r.within_noise) << r.name << " " << r.relative;
    EXPECT_LT(std::fabs(r.relative), 0.01) << r.name; // measured: at most 0.14%
  }
}

TEST(DiffFixture, WiderProducerLoadsHalveProduceAndTheConsumersWait) {
  const Loaded a = load("diff/ws_gemm_run1.ctrace"), b = load("diff/ws_gemm_float4.ctrace");
  const Loaded c = load("diff/ws_gemm_run1.ctrace"), dd = load("diff/ws_gemm_run2.ctrace");
  NoiseModel noise;
  add_noise_measurement(noise, c.side, dd.side);
  const TraceDiff d = diff_traces(a.side, b.side, noise);
  ASSERT_GE(d.rows.size(), 3u);
  std::set<std::string> top3;
  for (size_t i = 0; i < 3; ++i) {
    top3.insert(std::string(diff_kind_name(d.rows[i].kind)) + " " + d.rows[i].name);
    EXPECT_FALSE(d.rows[i].within_noise) << d.rows[i].name;
    EXPECT_LT(d.rows[i].relative, -0.4) << d.rows[i].name; // each at least 40% less
  }
  EXPECT_EQ(top3,
            (std::set<std::string>{"slice produce", "slice consume", "wait produce -> consume"}));
  EXPECT_EQ(row(d, DiffKind::slice, "produce").a.count, 192u);
  EXPECT_EQ(row(d, DiffKind::slice, "produce").b.count, 192u);
  EXPECT_TRUE(row(d, DiffKind::slice, "epilogue").within_noise);
  EXPECT_TRUE(row(d, DiffKind::instant, "stage_ready").within_noise);
}

TEST(DiffFixture, SingleLaunchFileAndRunFileOfOneLaunchAreIdentical) {
  const Loaded a = load("issue14/layernorm_rows.ctrace"), b = load("issue14/layernorm_run.ctrace");
  const TraceDiff d = diff_traces(a.side, b.side);
  ASSERT_FALSE(d.rows.empty());
  for (const DiffRow &r : d.rows) {
    EXPECT_EQ(r.relative, 0) << r.name;
    EXPECT_EQ(r.a.count, r.b.count) << r.name;
  }
}

} // namespace
} // namespace cutrace
