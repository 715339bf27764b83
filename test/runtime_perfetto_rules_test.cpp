// The Chrome Trace Event Format's rules, as Perfetto UI applies them when it imports JSON, checked
// on our exports (export_perfetto, export_run_perfetto; docs/viewer.md, "Perfetto"): over
// synthetic launches built to stress them (nested slices sharing a begin, a flow landing inside a
// nested slice, ends that coincide) and over every committed H200 fixture. The rules, in short:
//  - the file is an object whose "traceEvents" is an array of events; "displayTimeUnit", when
//    given, is "ms" or "ns" and changes only the display, never the unit of ts and dur;
//  - "ts" and "dur" are microseconds (fractions allowed); the importer turns them into integer ns
//    by rounding ts x 1000 (so 3 decimals keep ns exactly);
//  - complete events ("X") need name, ts, dur, pid, tid; the slices of one thread must nest: two
//    of them are disjoint or one contains the other (a partial overlap breaks the thread's stack);
//    a slice is closed at ts + dur: an event at exactly that time is no longer inside it;
//  - instants ("i") carry a scope "s" of "g", "p" or "t";
//  - flow events ("s" start, "f" finish) are tied together by id, category and name; "s" binds to
//    the slice enclosing it on its thread (the innermost open one), "f" with "bp":"e" to the slice
//    enclosing it, without "bp" to the next slice that begins on its thread; a finish seen before
//    its start (earlier ts) has nothing to bind to;
//  - metadata ("M") names processes and threads (process_name, thread_name: args.name) and orders
//    them (process_sort_index, thread_sort_index: args.sort_index, an integer);
//  - pid and tid are integers.
#include <cutrace/analysis.h>
#include <cutrace/ctrace.h>
#include <cutrace/decode.h>
#include <cutrace/export.h>
#include <cutrace/run_trace.h>

#include "support/buffer_builder.h"
#include "support/perfetto_stress.h"
#include "support/run_builder.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>
#include "support/tree_paths.h"


namespace cutrace {
namespace {

using nlohmann::json;
using test_support::kStressMap;
using test_support::exported_name;
using test_support::stress_trace;

// As the importer reads a JSON time: microseconds to integer ns, rounded.
int64_t ns_of(const json &us) { return int64_t(std::llround(us.get<double>() * 1000.0)); }

// One export to check, with the launch it came from when it is a launch export.
struct Exported {
  std::string what;
  json doc;
  std::shared_ptr<RunTrace> run; // keeps map and trace alive
  const DecodeMap *map = nullptr;
  const Trace *trace = nullptr; // set for a launch export (pid = CTA + 1, flow id = index + 1)
};

std::vector<Exported> synthetic_exports() {
  std::vector<Exported> out;
  auto run = std::make_shared<RunTrace>();
  run->maps.push_back(*parse_decode_map(kStressMap));
  RunLaunch l;
  l.trace = stress_trace(run->maps[0]);
  run->launches.push_back(std::move(l));
  Exported e;
  e.what = "synthetic stress launch";
  e.doc = json::parse(export_perfetto(run->maps[0], run->launches[0].trace));
  e.run = run;
  e.map = &run->maps[0];
  e.trace = &run->launches[0].trace;
  out.push_back(std::move(e));

  // A run of the step kernel (test/support/run_builder.h): two launches, an aligned host clock.
  Run raw;
  raw.run_json = R"({"program":"train","pid":7,"host":"node"})";
  raw.devices.push_back(
      R"({"index":0,"name":"GPU","aligned":true,"host_minus_gpu_ns":1000,"alignment_error_ns":5})");
  raw.maps.push_back(test_support::step_map_json());
  for (uint32_t i = 0; i < 2; ++i)
    raw.launches.push_back(
        test_support::step_record(0, 0, 0x10, i, 3, 5'000'000 + 20'000 * i, 4'999'000));
  Exported r;
  r.what = "synthetic run";
  r.run = std::make_shared<RunTrace>(*decode_run(raw));
  r.doc = json::parse(export_run_perfetto(*r.run));
  out.push_back(std::move(r));
  return out;
}

// Every committed H200 fixture: its launch export when it holds one launch, its run export always.
std::vector<Exported> fixture_exports() {
  std::vector<std::string> paths;
  for (const auto &entry :
       std::filesystem::recursive_directory_iterator(std::string(CUTRACE_TEST_DATA) + "/h200"))
    if (entry.path().extension() == ".ctrace")
      paths.push_back(entry.path().string());
  std::sort(paths.begin(), paths.end());
  std::vector<Exported> out;
  for (const std::string &path : paths) {
    Expected<Run> raw = read_run_file(path);
    EXPECT_TRUE(raw) << path << ": " << raw.error;
    if (!raw)
      continue;
    auto run = std::make_shared<RunTrace>(*decode_run(*raw, path));
    const std::string name = path.substr(path.find("/h200/") + 1);
    if (run->launches.size() == 1) {
      Exported e;
      e.what = name + " (launch)";
      e.run = run;
      e.map = &run->maps[run->launches[0].map];
      e.trace = &run->launches[0].trace;
      e.doc = json::parse(export_perfetto(*e.map, *e.trace));
      out.push_back(std::move(e));
    }
    Exported r;
    r.what = name + " (run)";
    r.run = run;
    r.doc = json::parse(export_run_perfetto(*run));
    out.push_back(std::move(r));
  }
  return out;
}

const std::vector<Exported> &all_exports() {
  static const std::vector<Exported> exports = [] {
    std::vector<Exported> v = synthetic_exports();
    for (Exported &e : fixture_exports())
      v.push_back(std::move(e));
    return v;
  }();
  return exports;
}

// The X events of every thread, as integer ns [begin, end).
struct Span {
  int64_t begin, end;
  const json *event;
};
using ThreadKey = std::pair<int64_t, int64_t>;
std::map<ThreadKey, std::vector<Span>> slices_by_thread(const json &doc) {
  std::map<ThreadKey, std::vector<Span>> threads;
  for (const json &e : doc["traceEvents"])
    if (e["ph"] == "X") {
      const int64_t b = ns_of(e["ts"]);
      threads[{e["pid"], e["tid"]}].push_back({b, b + ns_of(e["dur"]), &e});
    }
  return threads;
}

// The innermost slice of `spans` open at t (begin <= t < end), as the importer's stack holds it
// after sorting by begin (a longer slice first on a tie); nullptr when none.
const json *enclosing(const std::vector<Span> &spans, int64_t t) {
  const Span *best = nullptr;
  for (const Span &s : spans)
    if (s.begin <= t && t < s.end &&
        (!best || s.begin > best->begin || (s.begin == best->begin && s.end < best->end)))
      best = &s;
  return best ? best->event : nullptr;
}

TEST(PerfettoRules, ExportsCoverEveryCommittedFixture) {
  size_t fixtures = 0;
  for (const auto &entry :
       std::filesystem::recursive_directory_iterator(std::string(CUTRACE_TEST_DATA) + "/h200"))
    fixtures += entry.path().extension() == ".ctrace";
  EXPECT_GE(fixtures, 20u);
  EXPECT_GE(all_exports().size(), fixtures + 2);
}

TEST(PerfettoRules, FileIsAnObjectWithATraceEventsArrayAndADisplayUnitOfMsOrNs) {
  for (const Exported &x : all_exports()) {
    ASSERT_TRUE(x.doc.is_object()) << x.what;
    ASSERT_TRUE(x.doc.contains("traceEvents") && x.doc["traceEvents"].is_array()) << x.what;
    if (x.doc.contains("displayTimeUnit"))
      EXPECT_TRUE(x.doc["displayTimeUnit"] == "ms" || x.doc["displayTimeUnit"] == "ns") << x.what;
  }
}

TEST(PerfettoRules, EveryPhaseIsOneOfXiSfMWithTheFieldsItNeeds) {
  for (const Exported &x : all_exports())
    for (const json &e : x.doc["traceEvents"]) {
      ASSERT_TRUE(e.contains("ph") && e["ph"].is_string()) << x.what << ": " << e;
      const std::string ph = e["ph"];
      ASSERT_TRUE(ph == "X" || ph == "i" || ph == "s" || ph == "f" || ph == "M")
          << x.what << ": " << e;
      EXPECT_TRUE(e.contains("name") && e["name"].is_string()) << x.what << ": " << e;
      EXPECT_TRUE(e.contains("pid") && e.contains("tid")) << x.what << ": " << e;
      if (ph != "M")
        EXPECT_TRUE(e.contains("ts") && e["ts"].is_number()) << x.what << ": " << e;
      if (ph == "X") {
        ASSERT_TRUE(e.contains("dur") && e["dur"].is_number()) << x.what << ": " << e;
        EXPECT_GE(e["dur"].get<double>(), 0) << x.what << ": " << e;
      }
      if (ph == "i")
        EXPECT_TRUE(e["s"] == "t" || e["s"] == "p" || e["s"] == "g") << x.what << ": " << e;
      if (ph == "s" || ph == "f")
        EXPECT_TRUE(e.contains("id") && e.contains("cat")) << x.what << ": " << e;
      if (ph == "M")
        EXPECT_TRUE(e.contains("args") && e["args"].is_object()) << x.what << ": " << e;
    }
}

TEST(PerfettoRules, PidAndTidAreNonNegativeIntegers) {
  for (const Exported &x : all_exports())
    for (const json &e : x.doc["traceEvents"]) {
      EXPECT_TRUE(e["pid"].is_number_integer() && e["pid"].get<int64_t>() >= 0) << x.what << e;
      EXPECT_TRUE(e["tid"].is_number_integer() && e["tid"].get<int64_t>() >= 0) << x.what << e;
    }
}

TEST(PerfettoRules, TimesAreMicrosecondsWhoseNanosecondsAreTheDecodersRounded) {
  for (const Exported &x : all_exports()) {
    if (!x.trace)
      continue;
    // (CTA, name, begin cycles, cycles) -> the decoded slices (rows of a CTA may share them)
    std::map<std::tuple<uint32_t, std::string, uint64_t, uint64_t>, std::vector<const Slice *>>
        decoded;
    size_t n = 0;
    for (const Row &row : x.trace->rows)
      for (const Slice &s : row.slices)
        decoded[{row.cta, exported_name(s), s.begin_cycles, s.end_cycles - s.begin_cycles}]
            .push_back(&s),
            ++n;
    size_t checked = 0;
    for (const json &e : x.doc["traceEvents"]) {
      if (e["ph"] != "X")
        continue;
      const uint32_t cta = uint32_t(e["pid"].get<int64_t>() - 1);
      auto it = decoded.find({cta, e["name"], e["args"]["begin_cycles"].get<uint64_t>(),
                              e["args"]["dur_cycles"].get<uint64_t>()});
      ASSERT_NE(it, decoded.end()) << x.what << ": " << e;
      const int64_t b = ns_of(e["ts"]), end = b + ns_of(e["dur"]);
      EXPECT_TRUE(std::any_of(it->second.begin(), it->second.end(),
                              [&](const Slice *s) {
                                return b == std::llround(s->begin_ns) &&
                                       end == std::llround(s->end_ns);
                              }))
          << x.what << ": " << e;
      ++checked;
    }
    EXPECT_EQ(checked, n) << x.what;
  }
}

TEST(PerfettoRules, SlicesOfOneThreadAreDisjointOrNested) {
  for (const Exported &x : all_exports())
    for (auto &[thread, spans] : slices_by_thread(x.doc)) {
      std::vector<Span> sorted = spans;
      std::sort(sorted.begin(), sorted.end(), [](const Span &a, const Span &b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
      });
      std::vector<int64_t> open_ends;
      for (const Span &s : sorted) {
        while (!open_ends.empty() && open_ends.back() <= s.begin)
          open_ends.pop_back();
        ASSERT_TRUE(open_ends.empty() || s.end <= open_ends.back())
            << x.what << ": pid " << thread.first << " tid " << thread.second
            << ": partial overlap at " << *s.event;
        open_ends.push_back(s.end);
      }
    }
}

TEST(PerfettoRules, EachFlowIdHasOneStartAndOneFinishOfOneCategoryAndName) {
  for (const Exported &x : all_exports()) {
    std::map<int64_t, std::vector<const json *>> starts, finishes;
    for (const json &e : x.doc["traceEvents"]) {
      if (e["ph"] == "s")
        starts[e["id"]].push_back(&e);
      if (e["ph"] == "f")
        finishes[e["id"]].push_back(&e);
    }
    EXPECT_EQ(starts.size(), finishes.size()) << x.what;
    for (const auto &[id, s] : starts) {
      ASSERT_EQ(s.size(), 1u) << x.what << " id " << id;
      ASSERT_EQ(finishes[id].size(), 1u) << x.what << " id " << id;
      const json &f = *finishes[id][0];
      EXPECT_EQ((*s[0])["cat"], f["cat"]) << x.what << " id " << id;
      EXPECT_EQ((*s[0])["name"], f["name"]) << x.what << " id " << id;
      EXPECT_LE(ns_of((*s[0])["ts"]), ns_of(f["ts"])) << x.what << ": finish before start " << f;
      EXPECT_EQ(f["bp"], "e") << x.what << ": " << f;
    }
    if (x.trace) {
      EXPECT_EQ(starts.size(), x.trace->flows.size()) << x.what;
    }
  }
}

TEST(PerfettoRules, FlowStartBindsToItsSourceSliceAndFinishToItsDestination) {
  for (const Exported &x : all_exports()) {
    const auto threads = slices_by_thread(x.doc);
    size_t flows = 0;
    for (const json &e : x.doc["traceEvents"]) {
      if (e["ph"] != "s" && e["ph"] != "f")
        continue;
      const std::string name = e["name"];
      const size_t arrow = name.find(" -> ");
      ASSERT_NE(arrow, std::string::npos) << x.what << ": " << e;
      const bool start = e["ph"] == "s";
      auto it = threads.find({e["pid"], e["tid"]});
      ASSERT_NE(it, threads.end()) << x.what << ": no slice on the thread of " << e;
      const json *bound = enclosing(it->second, ns_of(e["ts"]));
      ASSERT_NE(bound, nullptr) << x.what << ": nothing encloses " << e;
      // A flow is named by its slices' range names; an incomplete slice's name says so besides.
      std::string bound_name = (*bound)["name"];
      if ((*bound)["args"].value("incomplete", false)) {
        const std::string suffix = kIncompleteSuffix;
        ASSERT_GT(bound_name.size(), suffix.size()) << x.what << ": " << *bound;
        ASSERT_EQ(bound_name.substr(bound_name.size() - suffix.size()), suffix) << x.what;
        bound_name.resize(bound_name.size() - suffix.size());
      }
      EXPECT_EQ(bound_name, start ? name.substr(0, arrow) : name.substr(arrow + 4))
          << x.what << ": " << e << " binds to " << *bound;
      if (x.trace) { // the decoded flow's own slice, not one of the same name
        const Flow &flow = x.trace->flows.at(size_t(e["id"].get<int64_t>() - 1));
        const SliceRef ref = start ? flow.src : flow.dst;
        const Slice &s = x.trace->rows[ref.row].slices[ref.slice];
        EXPECT_EQ((*bound)["args"]["begin_cycles"], s.begin_cycles) << x.what << ": " << e;
        EXPECT_EQ((*bound)["pid"].get<int64_t>(), int64_t(x.trace->rows[ref.row].cta) + 1);
      }
      ++flows;
    }
    if (x.trace)
      EXPECT_EQ(flows, 2 * x.trace->flows.size()) << x.what;
  }
}

TEST(PerfettoRules, EveryProcessAndThreadIsNamedAndSortedByIntegerIndex) {
  for (const Exported &x : all_exports()) {
    std::set<int64_t> pids, named_p, sorted_p;
    std::set<ThreadKey> tids, named_t, sorted_t;
    for (const json &e : x.doc["traceEvents"]) {
      const ThreadKey key{e["pid"], e["tid"]};
      if (e["ph"] != "M") {
        pids.insert(key.first);
        tids.insert(key);
        continue;
      }
      const std::string what = e["name"];
      if (what == "process_name" || what == "thread_name")
        EXPECT_TRUE(e["args"]["name"].is_string()) << x.what << ": " << e;
      if (what == "process_sort_index" || what == "thread_sort_index")
        EXPECT_TRUE(e["args"]["sort_index"].is_number_integer()) << x.what << ": " << e;
      if (what == "process_name")
        named_p.insert(key.first);
      else if (what == "process_sort_index")
        sorted_p.insert(key.first);
      else if (what == "thread_name")
        named_t.insert(key);
      else if (what == "thread_sort_index")
        sorted_t.insert(key);
      else
        ADD_FAILURE() << x.what << ": metadata the importer ignores: " << e;
    }
    for (int64_t pid : pids) {
      EXPECT_TRUE(named_p.count(pid)) << x.what << ": process " << pid << " has no name";
      EXPECT_TRUE(sorted_p.count(pid)) << x.what << ": process " << pid << " has no sort index";
    }
    for (const ThreadKey &t : tids) {
      EXPECT_TRUE(named_t.count(t)) << x.what << ": thread " << t.second << " has no name";
      EXPECT_TRUE(sorted_t.count(t)) << x.what << ": thread " << t.second << " has no sort index";
    }
  }
}

TEST(PerfettoRules, EachDestinationSliceCarriesItsHandoffWaitGapAndSource) {
  for (const Exported &x : all_exports()) {
    if (!x.trace)
      continue;
    std::map<std::tuple<int64_t, std::string, uint64_t>, const json *> by_slice;
    for (const json &e : x.doc["traceEvents"])
      if (e["ph"] == "X")
        by_slice[{e["pid"], e["name"], e["args"]["begin_cycles"]}] = &e;
    for (const Flow &f : x.trace->flows) {
      const Slice &src = x.trace->rows[f.src.row].slices[f.src.slice];
      const Slice &dst = x.trace->rows[f.dst.row].slices[f.dst.slice];
      const json &e =
          *by_slice.at({int64_t(x.trace->rows[f.dst.row].cta) + 1, exported_name(dst),
                       dst.begin_cycles});
      const HandoffTiming h = handoff_timing(*x.trace, f);
      EXPECT_EQ(e["args"]["handoff_src"], src.name) << x.what << ": " << e;
      EXPECT_NEAR(e["args"]["wait_ns"].get<double>(), h.wait_ns, 0.001) << x.what << ": " << e;
      EXPECT_NEAR(e["args"]["gap_ns"].get<double>(), h.gap_ns, 0.001) << x.what << ": " << e;
      EXPECT_NEAR(e["args"]["wait_cycles"].get<double>(), h.wait_cycles, 0.5) << x.what;
    }
  }
}

} // namespace
} // namespace cutrace
