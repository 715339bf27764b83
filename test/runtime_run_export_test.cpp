// Exports of a whole run (docs/viewer.md, "Runs in Perfetto and in the summary") on a hand-built
// run: two GPUs of one process, two streams, launches of two kernels. Perfetto: one process per
// GPU, a track per stream, every launch's rows at launch offset + their time, valid and properly
// nested JSON.
// Summary: durations, enqueue latency and stream gaps against hand-computed values.
#include <cutrace/export.h>
#include <cutrace/run_trace.h>

#include "support/run_builder.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace cutrace {
namespace {

using nlohmann::json;
using test_support::step_launch;
using test_support::step_map;

constexpr uint64_t kStreamA = 0x10, kStreamB = 0x20;

// Device 0 (aligned ±2.5 us): stream A runs seq 0 (step, 2 CTAs) at 1000, seq 1 (other, 1 CTA)
// at 8000 and seq 4 (step, 2 CTAs) at 20000; stream B runs seq 2 (step, 3 CTAs) at 6000, which
// overlaps seq 1 on SM 0. Device 1 (not aligned): seq 3 (step, 2 CTAs) at 2000 on stream A.
// Enqueued 500, 1500, 700 and 1000 ns before their begin (device 0 only).
RunTrace two_gpu_run() {
  RunTrace run;
  RunProcess p;
  p.program = "train";
  p.pid = 42;
  p.host = "node1";
  p.complete = true;
  p.launches = "first:4";
  p.kernel_launches = {{"step", {5, 4}}, {"other", {3, 1}}};
  run.processes.push_back(p);
  RunDevice d0, d1;
  d0.index = 0, d0.name = "GPU-A", d0.sms = 132, d0.clock_khz = 1980000;
  d0.aligned = true, d0.alignment_error_ns = 2500;
  d1.index = 1, d1.name = "GPU-B";
  run.devices = {d0, d1};
  run.maps = {step_map("step"), step_map("other")};
  run.launches.push_back(step_launch(run, 0, 0, kStreamA, 0, 2, 1000, 500));
  run.launches.push_back(step_launch(run, 0, 1, kStreamA, 3, 2, 2000));
  run.launches.push_back(step_launch(run, 0, 0, kStreamB, 2, 3, 6000, 5300));
  run.launches.push_back(step_launch(run, 1, 0, kStreamA, 1, 1, 8000, 6500));
  run.launches.push_back(step_launch(run, 0, 0, kStreamA, 4, 2, 20000, 19000));
  for (const RunLaunch &l : run.launches)
    EXPECT_TRUE(l.trace.ok()) << l.trace.problems.front();
  return run;
}

json parse(const std::string &text) {
  json doc = json::parse(text, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << "not JSON";
  return doc;
}

// Thread names by (pid, tid), process names by pid.
struct Names {
  std::map<int, std::string> processes;
  std::map<std::pair<int, int>, std::string> threads;
};

Names names(const json &doc) {
  Names n;
  for (const json &e : doc["traceEvents"]) {
    if (e["ph"] != "M")
      continue;
    if (e["name"] == "process_name")
      n.processes[e["pid"]] = e["args"]["name"];
    if (e["name"] == "thread_name")
      n.threads[{e["pid"], e["tid"]}] = e["args"]["name"];
  }
  return n;
}

double ns(const json &ts) { return ts.get<double>() * 1000.0; }

TEST(RunPerfetto, OneProcessPerGpuNamedByProgramPidAndDevice) {
  const json doc = parse(export_run_perfetto(two_gpu_run()));
  const Names n = names(doc);
  ASSERT_EQ(n.processes.size(), 2u);
  EXPECT_EQ(n.processes.at(1), "train 42 \u00b7 GPU 0 (GPU-A)");
  EXPECT_EQ(n.processes.at(2), "train 42 \u00b7 GPU 1 (GPU-B)");
  RunTrace ranked = two_gpu_run();
  ranked.processes[0].rank = 3;
  EXPECT_EQ(names(parse(export_run_perfetto(ranked))).processes.at(2),
            "rank 3 \u00b7 GPU 1 (GPU-B)");
}

TEST(RunPerfetto, OneTrackPerStreamWithOneCompleteEventPerLaunch) {
  const RunTrace run = two_gpu_run();
  const json doc = parse(export_run_perfetto(run));
  const Names n = names(doc);
  std::map<std::string, std::vector<json>> by_track; // "pid/thread name" -> launch events
  for (const json &e : doc["traceEvents"])
    if (e["ph"] == "X" && e["cat"] == "launch")
      by_track[std::to_string(e["pid"].get<int>()) + "/" + n.threads.at({e["pid"], e["tid"]})]
          .push_back(e);
  ASSERT_EQ(by_track.size(), 3u);
  const std::vector<json> &a0 = by_track["1/stream 0x10"];
  ASSERT_EQ(a0.size(), 3u);
  EXPECT_EQ(a0[0]["name"], "step");
  EXPECT_EQ(a0[1]["name"], "other");
  EXPECT_EQ(a0[2]["name"], "step");
  EXPECT_EQ(a0[0]["args"]["sequence"], 0);
  EXPECT_EQ(a0[1]["args"]["sequence"], 1);
  EXPECT_EQ(a0[2]["args"]["sequence"], 4);
  EXPECT_NEAR(ns(a0[1]["ts"]), 8000, 0.5);
  EXPECT_NEAR(ns(a0[1]["dur"]), 4000, 0.5);
  EXPECT_EQ(a0[0]["args"]["grid"], json::array({2, 1, 1}));
  EXPECT_EQ(a0[0]["args"]["block"], json::array({64, 1, 1}));
  EXPECT_EQ(a0[0]["args"]["launch_index"], 0);
  EXPECT_EQ(a0[0]["args"]["in_graph"], false);
  EXPECT_NEAR(a0[1]["args"]["enqueue_to_start_us"].get<double>(), 1.5, 1e-9);
  ASSERT_EQ(by_track["1/stream 0x20"].size(), 1u);
  EXPECT_NEAR(ns(by_track["1/stream 0x20"][0]["dur"]), 4200, 0.5);
  ASSERT_EQ(by_track["2/stream 0x10"].size(), 1u);
  EXPECT_FALSE(by_track["2/stream 0x10"][0]["args"].contains("enqueue_to_start_us"));
}

TEST(RunPerfetto, SlicesAndInstantsSitAtLaunchOffsetPlusTheirTime) {
  const RunTrace run = two_gpu_run();
  // (launch, name, run-axis ns) of every slice and instant, from the decoded launches.
  std::multiset<std::tuple<uint64_t, std::string, int64_t>> want, got;
  for (const RunLaunch &l : run.launches)
    for (const Row &r : l.trace.rows) {
      for (const Slice &s : r.slices)
        want.insert({l.sequence, s.name, std::llround(l.offset_ns + s.begin_ns)});
      for (const Instant &i : r.instants)
        want.insert({l.sequence, i.name, std::llround(l.offset_ns + i.ns)});
    }
  const json doc = parse(export_run_perfetto(run));
  for (const json &e : doc["traceEvents"])
    if ((e["ph"] == "X" && e["cat"] == "slice") || e["ph"] == "i")
      if (e["cat"] != "enqueue")
        got.insert({e["args"]["launch"], e["name"], std::llround(ns(e["ts"]))});
  EXPECT_EQ(got, want);
  // By hand: launch 4 (offset 20000), CTA 1 (100 ns after CTA 0): load at 100, tick at 500.
  EXPECT_EQ(got.count({4, "load", 20200}), 1u);
  EXPECT_EQ(got.count({4, "tick", 20600}), 1u);
}

TEST(RunPerfetto, SliceArgsNameKernelLaunchCtaGroupAndLane) {
  const json doc = parse(export_run_perfetto(two_gpu_run()));
  bool seen = false;
  for (const json &e : doc["traceEvents"])
    if (e["ph"] == "X" && e["cat"] == "slice" && e["args"]["launch"] == 2 &&
        e["name"] == "compute" && e["args"]["payload"] == 2) {
      seen = true;
      EXPECT_EQ(e["args"]["kernel"], "step");
      EXPECT_EQ(e["args"]["cta"], "CTA (2,0,0)");
      EXPECT_EQ(e["args"]["group"], "math");
      EXPECT_EQ(e["args"]["lane"], "main");
      EXPECT_EQ(e["args"]["loc"], "step.cu:9:3");
    }
  EXPECT_TRUE(seen);
}

TEST(RunPerfetto, EveryTrackIsInTimeOrderAndItsSlicesNest) {
  // Launches 1 and 2 overlap on SM 0 of GPU 0: their rows must land on different SM tracks.
  const json doc = parse(export_run_perfetto(two_gpu_run()));
  std::map<std::pair<int, int>, std::vector<json>> tracks;
  for (const json &e : doc["traceEvents"])
    if (e["ph"] != "M")
      tracks[{e["pid"], e["tid"]}].push_back(e);
  for (const auto &[key, events] : tracks) {
    std::vector<double> open_ends;
    double last = -1;
    for (const json &e : events) {
      const double ts = e["ts"];
      EXPECT_GE(ts, last) << "track " << key.first << "/" << key.second;
      last = ts;
      if (e["ph"] != "X")
        continue;
      const double end = ts + e["dur"].get<double>();
      while (!open_ends.empty() && open_ends.back() <= ts)
        open_ends.pop_back();
      EXPECT_TRUE(open_ends.empty() || end <= open_ends.back() + 1e-9)
          << e.dump() << " overlaps its track's enclosing slice partially";
      open_ends.push_back(end);
    }
  }
  const Names n = names(doc);
  int sm0_tracks = 0;
  for (const auto &[key, name] : n.threads)
    sm0_tracks += key.first == 1 && name.rfind("SM 0 \u00b7", 0) == 0;
  EXPECT_EQ(sm0_tracks, 4); // two resident CTAs (launches 1 and 2) x two groups
}

TEST(RunPerfetto, FlowIdsAreUniqueAcrossLaunches) {
  const RunTrace run = two_gpu_run();
  size_t flows = 0;
  for (const RunLaunch &l : run.launches)
    flows += l.trace.flows.size();
  ASSERT_EQ(flows, 10u);                        // one load -> compute per CTA
  std::map<uint64_t, std::pair<int, int>> ends; // id -> (starts, finishes)
  const json doc = parse(export_run_perfetto(run));
  for (const json &e : doc["traceEvents"]) {
    if (e["ph"] == "s")
      ++ends[e["id"]].first;
    if (e["ph"] == "f")
      ++ends[e["id"]].second;
  }
  EXPECT_EQ(ends.size(), flows);
  for (const auto &[id, n] : ends)
    EXPECT_EQ(n, std::make_pair(1, 1)) << "flow " << id;
}

TEST(RunPerfetto, HostTrackHoldsEnqueueInstantsOfAlignedLaunchesOnly) {
  const json doc = parse(export_run_perfetto(two_gpu_run()));
  const Names n = names(doc);
  std::vector<double> enqueues;
  for (const json &e : doc["traceEvents"])
    if (e["ph"] == "i" && e["cat"] == "enqueue") {
      EXPECT_EQ(n.threads.at({e["pid"], e["tid"]}), "host");
      EXPECT_EQ(e["pid"], 1);
      enqueues.push_back(ns(e["ts"]));
    }
  EXPECT_EQ(enqueues, (std::vector<double>{500, 5300, 6500, 19000}));
  for (const auto &[key, name] : n.threads)
    EXPECT_FALSE(key.first == 2 && name == "host") << "GPU 1 has no enqueue times";
}

TEST(RunPerfetto, TimesAnHourIntoTheRunKeepNanoseconds) {
  RunTrace run = two_gpu_run();
  run.launches.resize(1);
  run.launches[0].begin_ns = run.launches[0].offset_ns = 3'600'000'000'123.0;
  run.launches[0].end_ns = run.launches[0].begin_ns + 4100;
  run.launches[0].enqueue_ns.reset();
  const json doc = parse(export_run_perfetto(run));
  for (const json &e : doc["traceEvents"])
    if (e["ph"] == "X" && e["name"] == "load" && e["args"]["cta"] == "CTA (1,0,0)")
      EXPECT_NEAR(ns(e["ts"]), 3'600'000'000'123.0 + 200, 0.01);
}

TEST(RunPerfetto, EmptyRunIsValidJson) {
  const json doc = parse(export_run_perfetto(RunTrace{}));
  EXPECT_TRUE(doc["traceEvents"].empty());
}

// ---- Summary ----

TEST(RunSummary, PerKernelDurationsAndEnqueueLatencyPerGpu) {
  const RunSummary s = summarize_run(two_gpu_run());
  EXPECT_EQ(s.launches, 5u);
  EXPECT_DOUBLE_EQ(s.span_ns, 24100 - 1000);
  ASSERT_EQ(s.devices.size(), 2u);
  const RunDeviceSummary &d0 = s.devices[0];
  ASSERT_EQ(d0.kernels.size(), 2u);
  EXPECT_EQ(d0.kernels[0].kernel, "other");
  EXPECT_EQ(d0.kernels[0].launches, 1u);
  EXPECT_DOUBLE_EQ(d0.kernels[0].mean_enqueue_to_start_ns, 1500);
  const RunKernelSummary &step = d0.kernels[1];
  EXPECT_EQ(step.launches, 3u); // 4100, 4200, 4100 ns
  EXPECT_DOUBLE_EQ(step.duration_ns.total, 12400);
  EXPECT_DOUBLE_EQ(step.duration_ns.p50, 4100);
  EXPECT_DOUBLE_EQ(step.duration_ns.max, 4200);
  EXPECT_EQ(step.enqueued, 3u);
  EXPECT_DOUBLE_EQ(step.mean_enqueue_to_start_ns, (500 + 700 + 1000) / 3.0);
  ASSERT_EQ(s.devices[1].kernels.size(), 1u);
  EXPECT_EQ(s.devices[1].kernels[0].enqueued, 0u);
}

TEST(RunSummary, StreamGapsAreIdleTimeBetweenConsecutiveLaunches) {
  const RunSummary s = summarize_run(two_gpu_run());
  ASSERT_EQ(s.devices[0].streams.size(), 2u);
  const RunStreamSummary &a = s.devices[0].streams[0]; // [1000,5100] [8000,12000] [20000,24100]
  EXPECT_EQ(a.stream, kStreamA);
  EXPECT_EQ(a.launches, 3u);
  EXPECT_EQ(a.gaps, 2u);
  EXPECT_DOUBLE_EQ(a.gap_total_ns, 2900 + 8000);
  EXPECT_DOUBLE_EQ(a.gap_max_ns, 8000);
  EXPECT_DOUBLE_EQ(a.busy_ns, 4100 + 4000 + 4100);
  EXPECT_DOUBLE_EQ(a.last_end_ns - a.first_begin_ns, 23100);
  const RunStreamSummary &b = s.devices[0].streams[1];
  EXPECT_EQ(b.gaps, 0u);
  EXPECT_DOUBLE_EQ(b.busy_ns, 4200);
}

TEST(RunSummary, OverlappingLaunchesOnAStreamCountNoGapAndNoDoubleBusy) {
  RunTrace run = two_gpu_run();
  run.launches[3].stream = kStreamB; // other [8000,12000] joins step [6000,10200] on stream B
  const RunStreamSummary b = summarize_run(run).devices[0].streams[1];
  EXPECT_EQ(b.gaps, 0u);
  EXPECT_DOUBLE_EQ(b.busy_ns, 12000 - 6000);
}

using Cells = std::vector<std::string>;

// The cells of the first table line of `text` whose first cell is `first`.
Cells cells(const std::string &text, const std::string &first) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    Cells row{std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
    if (!row.empty() && row[0] == first)
      return row;
  }
  return {};
}

TEST(RunSummary, TextSaysAlignmentPerGpuAndSeenRecordedSkippedPerKernel) {
  const std::string text = run_summary(two_gpu_run());
  EXPECT_NE(text.find("GPU 0 (GPU-A, 132 SMs, 1980 MHz): host clock aligned \u00b12.500 \u00b5s"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("GPU 1 (GPU-B): not aligned"), std::string::npos) << text;
  EXPECT_NE(text.find("selection: launches 'first:4'"), std::string::npos) << text;
  EXPECT_EQ(cells(text, "other"), (Cells{"other", "3", "1", "2"})); // seen, recorded, skipped
  EXPECT_EQ(cells(text, "step"), (Cells{"step", "5", "4", "1"}));
  // GPU 0, stream A: 3 launches, busy 12.2 us, span 23.1 us, 2 gaps, 10.9 us idle, 8 us at most
  EXPECT_EQ(cells(text, "0x10"), (Cells{"0x10", "3", "12.200", "23.100", "2", "10.900", "8.000"}));
}

TEST(RunSummary, JsonHasTheSameNumbersAndEveryLaunch) {
  const RunTrace run = two_gpu_run();
  const json doc = parse(run_summary_json(run));
  const RunSummary s = summarize_run(run);
  ASSERT_EQ(doc["launches"].size(), 5u);
  const json &first = doc["launches"][0];
  EXPECT_EQ(first["sequence"], 0);
  EXPECT_EQ(first["kernel"], "step");
  EXPECT_EQ(first["launch_index"], 0);
  EXPECT_EQ(first["device"], 0);
  EXPECT_EQ(first["stream"], kStreamA);
  EXPECT_DOUBLE_EQ(first["begin_ns"].get<double>(), 1000);
  EXPECT_DOUBLE_EQ(first["end_ns"].get<double>(), 5100);
  EXPECT_EQ(doc["launches"][1]["device"], 1);
  const json &step = doc["devices"][0]["kernels"][1];
  EXPECT_EQ(step["kernel"], "step");
  EXPECT_DOUBLE_EQ(step["duration_ns"]["total"].get<double>(),
                   s.devices[0].kernels[1].duration_ns.total);
  EXPECT_DOUBLE_EQ(step["mean_enqueue_to_start_ns"].get<double>(),
                   s.devices[0].kernels[1].mean_enqueue_to_start_ns);
  EXPECT_TRUE(doc["devices"][1]["kernels"][0]["mean_enqueue_to_start_ns"].is_null());
  EXPECT_DOUBLE_EQ(doc["devices"][0]["streams"][0]["gap_total_ns"].get<double>(), 10900);
  EXPECT_EQ(doc["devices"][0]["alignment_error_ns"], 2500);
  EXPECT_EQ(doc["processes"][0]["kernel_launches"]["step"]["skipped"], 1);
}

} // namespace
} // namespace cutrace
