// The rules Perfetto's importer applies to a protobuf trace, checked on what `--perfetto` writes
// (write_perfetto_trace, write_run_perfetto_trace; docs/viewer.md, "Perfetto"), over synthetic
// launches built to stress them (one with a hand-off whose ends fall on one ns), a synthetic run,
// and every committed H200 fixture (each run read without records and streamed launch by launch, as
// trace-view does). Read back with a decoder of the tests' own (test/perfetto/pftrace_read.h). The
// rules, in short:
//  - a trace is a sequence of TracePacket fields; interned names are per packet sequence: the
//    first packet of the sequence clears its incremental state, an interned id is defined (in
//    its packet's interned_data or an earlier packet's) before it is used and never redefined,
//    and a packet that uses interned data says it needs incremental state;
//  - a track is described (TrackDescriptor) before an event uses it, its parent before it, and
//    no uuid is described twice;
//  - the importer sorts events by timestamp, ties in file order; in that order SLICE_BEGIN and
//    SLICE_END pair up per track like a stack: an END always has a slice to close, and every
//    slice is closed at the end;
//  - a flow id in flow_ids starts a flow at that event's slice; the same id in
//    terminating_flow_ids ends it there; an end seen before its start is dropped.
#include <cutrace/analysis.h>
#include <cutrace/ctrace.h>
#include <cutrace/export.h>
#include <cutrace/run_trace.h>

#include "perfetto/pftrace_read.h"
#include "support/perfetto_stress.h"
#include "support/run_builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>
#include "support/tree_paths.h"


namespace cutrace {
namespace {

using pftrace_read::Type;
using test_support::exported_name;

struct Exported {
  std::string what;
  std::string bytes;
  pftrace_read::Trace read;
  std::shared_ptr<RunTrace> run; // keeps map and trace alive
  const DecodeMap *map = nullptr;
  const Trace *trace = nullptr; // a launch export
};

std::string launch_bytes(const DecodeMap &map, const Trace &t,
                         PftraceEncoding encoding = PftraceEncoding::compact) {
  std::string out;
  EXPECT_TRUE(write_perfetto_trace(
      map, t,
      [&](std::string_view b) {
        out.append(b.data(), b.size());
        return true;
      },
      encoding));
  return out;
}

std::string run_bytes(const RunTrace &run, bool streamed,
                      PftraceEncoding encoding = PftraceEncoding::compact) {
  std::string out;
  RunPerfettoOptions options;
  options.encoding = encoding;
  if (streamed)
    options.load_detail = [&run](const RunLaunch &l) { return with_detail(run, l); };
  const std::optional<std::string> err = write_run_perfetto_trace(
      run,
      [&](std::string_view b) {
        out.append(b.data(), b.size());
        return true;
      },
      options);
  EXPECT_FALSE(err) << *err;
  return out;
}

Exported exported(std::string what, std::string bytes, std::shared_ptr<RunTrace> run,
                  const DecodeMap *map = nullptr, const Trace *trace = nullptr) {
  Exported e{std::move(what), std::move(bytes), {}, std::move(run), map, trace};
  e.read = pftrace_read::read(e.bytes);
  return e;
}

std::vector<std::string> fixtures() {
  std::vector<std::string> paths;
  for (const auto &entry :
       std::filesystem::recursive_directory_iterator(std::string(CUTRACE_TEST_DATA) + "/h200"))
    if (entry.path().extension() == ".ctrace")
      paths.push_back(entry.path().string());
  std::sort(paths.begin(), paths.end());
  return paths;
}

const std::vector<Exported> &all_exports() {
  static const std::vector<Exported> exports = [] {
    std::vector<Exported> out;
    auto stress = std::make_shared<RunTrace>();
    stress->maps.push_back(*parse_decode_map(test_support::kStressMap));
    RunLaunch l;
    l.trace = test_support::stress_trace(stress->maps[0]);
    stress->launches.push_back(std::move(l));
    out.push_back(exported("synthetic stress launch",
                           launch_bytes(stress->maps[0], stress->launches[0].trace), stress,
                           &stress->maps[0], &stress->launches[0].trace));

    auto tie = std::make_shared<RunTrace>();
    tie->maps.push_back(*parse_decode_map(test_support::kTieMap));
    RunLaunch t;
    t.trace = test_support::tie_trace(tie->maps[0]);
    EXPECT_EQ(t.trace.flows.size(), 1u);
    tie->launches.push_back(std::move(t));
    out.push_back(exported("synthetic hand-off whose ends meet",
                           launch_bytes(tie->maps[0], tie->launches[0].trace), tie, &tie->maps[0],
                           &tie->launches[0].trace));

    Run raw;
    raw.run_json = R"({"program":"train","pid":7,"host":"node"})";
    raw.devices.push_back(
        R"({"index":0,"name":"GPU","aligned":true,"host_minus_gpu_ns":1000,"alignment_error_ns":5})");
    raw.maps.push_back(test_support::step_map_json());
    for (uint32_t i = 0; i < 2; ++i)
      raw.launches.push_back(
          test_support::step_record(0, 0, 0x10, i, 3, 5'000'000 + 20'000 * i, 4'999'000));
    auto synthetic = std::make_shared<RunTrace>(*decode_run(raw));
    out.push_back(exported("synthetic run", run_bytes(*synthetic, false), synthetic));

    for (const std::string &path : fixtures()) {
      const std::string name = path.substr(path.find("/h200/") + 1);
      RunReadOptions lean;
      lean.max_buffer_bytes = 0;
      Expected<Run> raw_run = read_run_file(path, lean);
      EXPECT_TRUE(raw_run) << path;
      if (!raw_run)
        continue;
      auto run = std::make_shared<RunTrace>(*decode_run(*raw_run, path));
      out.push_back(exported(name + " (run, streamed)", run_bytes(*run, true), run));
      if (run->launches.size() == 1) {
        auto one = std::make_shared<RunTrace>(*decode_run(*read_run_file(path), path));
        const RunLaunch &f = one->launches[0];
        out.push_back(exported(name + " (launch)", launch_bytes(one->maps[f.map], f.trace), one,
                               &one->maps[f.map], &f.trace));
      }
    }
    return out;
  }();
  return exports;
}

// Per track, in import order: the slices as they pair up, and for each END the name it closes.
struct Paired {
  struct Slice {
    const pftrace_read::Event *begin, *end;
  };
  std::vector<Slice> slices;
  std::map<const pftrace_read::Event *, const pftrace_read::Event *> begin_of_end;
  std::vector<std::string> errors;
};

Paired pair_slices(const pftrace_read::Trace &t) {
  Paired p;
  std::map<uint64_t, std::vector<const pftrace_read::Event *>> open;
  for (const pftrace_read::Event *e : pftrace_read::import_order(t)) {
    if (e->type == Type::begin) {
      open[e->track].push_back(e);
    } else if (e->type == Type::end) {
      std::vector<const pftrace_read::Event *> &stack = open[e->track];
      if (stack.empty()) {
        p.errors.push_back("END at " + std::to_string(e->ts) + " on track " +
                           std::to_string(e->track) + " closes nothing");
        continue;
      }
      p.slices.push_back({stack.back(), e});
      p.begin_of_end[e] = stack.back();
      stack.pop_back();
    }
  }
  for (const auto &[track, stack] : open)
    for (const pftrace_read::Event *e : stack)
      p.errors.push_back("'" + e->name + "' on track " + std::to_string(track) + " never closed");
  return p;
}

TEST(PftraceRules, ExportsCoverEveryCommittedFixture) {
  EXPECT_GE(fixtures().size(), 20u);
  EXPECT_GE(all_exports().size(), fixtures().size() + 3);
}

TEST(PftraceRules, ReadsBackAsTheDeclaredFieldsWithEveryIdDefinedBeforeUse) {
  for (const Exported &x : all_exports()) {
    EXPECT_GT(x.read.packets, 0u) << x.what;
    for (const std::string &p : x.read.problems)
      ADD_FAILURE() << x.what << ": " << p;
  }
}

TEST(PftraceRules, EveryPacketIsOnOneSequenceWhoseFirstPacketClearsItsState) {
  for (const Exported &x : all_exports()) {
    EXPECT_EQ(x.read.packets_without_sequence, 0u) << x.what;
    EXPECT_EQ(x.read.packets_on_other_sequences, 0u) << x.what;
    EXPECT_TRUE(x.read.first_packet_clears_state) << x.what;
  }
}

TEST(PftraceRules, PacketsThatUseInternedDataSayTheyNeedIncrementalState) {
  for (const Exported &x : all_exports())
    EXPECT_EQ(x.read.interned_uses_without_flag, 0u) << x.what;
}

TEST(PftraceRules, SlicesBalanceOnEveryTrackInImportOrder) {
  for (const Exported &x : all_exports()) {
    const Paired p = pair_slices(x.read);
    for (const std::string &e : p.errors)
      ADD_FAILURE() << x.what << ": " << e;
  }
}

TEST(PftraceRules, TimestampsNeverGoBackOnATrackInFileOrder) {
  for (const Exported &x : all_exports()) {
    std::map<uint64_t, uint64_t> last;
    for (const pftrace_read::Event &e : x.read.events) {
      auto [it, added] = last.try_emplace(e.track, e.ts);
      EXPECT_LE(it->second, e.ts) << x.what << ": track " << e.track << " '" << e.name << "'";
      it->second = e.ts;
    }
  }
}

TEST(PftraceRules, EachFlowLeavesItsSourceSliceBeforeItArrivesAtItsDestination) {
  for (const Exported &x : all_exports()) {
    const Paired p = pair_slices(x.read);
    std::map<uint64_t, std::pair<size_t, const pftrace_read::Event *>> out, in;
    const std::vector<const pftrace_read::Event *> order = pftrace_read::import_order(x.read);
    for (size_t i = 0; i < order.size(); ++i) {
      for (uint64_t id : order[i]->flows_out)
        EXPECT_TRUE(out.emplace(id, std::make_pair(i, order[i])).second) << x.what << " id " << id;
      for (uint64_t id : order[i]->flows_in)
        EXPECT_TRUE(in.emplace(id, std::make_pair(i, order[i])).second) << x.what << " id " << id;
    }
    EXPECT_EQ(out.size(), in.size()) << x.what;
    for (const auto &[id, from] : out) {
      auto to = in.find(id);
      ASSERT_NE(to, in.end()) << x.what << ": flow " << id << " never arrives";
      EXPECT_LT(from.first, to->second.first) << x.what << ": flow " << id << " arrives first";
      // Out of the source's BEGIN; into the destination's BEGIN or END.
      ASSERT_EQ(from.second->type, Type::begin) << x.what;
      const pftrace_read::Event *src = from.second;
      const pftrace_read::Event *dst = to->second.second->type == Type::begin
                                           ? to->second.second
                                           : p.begin_of_end.at(to->second.second);
      if (x.trace) {
        const Flow &f = x.trace->flows.at(size_t(id - 1));
        EXPECT_EQ(src->name, exported_name(x.trace->rows[f.src.row].slices[f.src.slice])) << x.what;
        EXPECT_EQ(dst->name, exported_name(x.trace->rows[f.dst.row].slices[f.dst.slice])) << x.what;
        EXPECT_EQ(std::get<uint64_t>(src->args.at("begin_cycles")),
                  x.trace->rows[f.src.row].slices[f.src.slice].begin_cycles)
            << x.what;
        EXPECT_EQ(std::get<uint64_t>(dst->args.at("begin_cycles")),
                  x.trace->rows[f.dst.row].slices[f.dst.slice].begin_cycles)
            << x.what;
      }
    }
    if (x.trace)
      EXPECT_EQ(out.size(), x.trace->flows.size()) << x.what;
  }
}

TEST(PftraceRules, SlicesAndInstantsAreTheDecodedOnesInWholeNanoseconds) {
  for (const Exported &x : all_exports()) {
    if (!x.trace)
      continue;
    std::multiset<std::tuple<std::string, int64_t, int64_t, uint64_t, uint64_t, int64_t>> want, got;
    size_t instants = 0;
    for (const Row &row : x.trace->rows) {
      for (const Slice &s : row.slices)
        want.insert({exported_name(s), std::llround(s.begin_ns), std::llround(s.end_ns), s.begin_cycles,
                     s.end_cycles - s.begin_cycles, s.payload});
      instants += row.instants.size();
    }
    for (const Paired::Slice &s : pair_slices(x.read).slices)
      if (s.begin->args.count("begin_cycles"))
        got.insert({s.begin->name, int64_t(s.begin->ts), int64_t(s.end->ts),
                    std::get<uint64_t>(s.begin->args.at("begin_cycles")),
                    std::get<uint64_t>(s.begin->args.at("dur_cycles")),
                    std::get<int64_t>(s.begin->args.at("payload"))});
    EXPECT_TRUE(want == got) << x.what << ": " << want.size() << " decoded, " << got.size()
                             << " written";
    EXPECT_EQ(std::count_if(x.read.events.begin(), x.read.events.end(),
                            [](const pftrace_read::Event &e) { return e.type == Type::instant; }),
              int64_t(instants))
        << x.what;
  }
}

TEST(PftraceRules, EachDestinationSliceCarriesItsHandoffWaitGapAndSource) {
  for (const Exported &x : all_exports()) {
    if (!x.trace)
      continue;
    const Paired p = pair_slices(x.read);
    size_t checked = 0;
    for (const pftrace_read::Event &e : x.read.events)
      for (uint64_t id : e.flows_in) { // the flow's destination slice, found by its id
        const pftrace_read::Event &dst = e.type == Type::begin ? e : *p.begin_of_end.at(&e);
        const Flow &f = x.trace->flows.at(size_t(id - 1));
        const HandoffTiming h = handoff_timing(*x.trace, f);
        EXPECT_EQ(std::get<std::string>(dst.args.at("handoff_src")),
                  x.trace->rows[f.src.row].slices[f.src.slice].name)
            << x.what;
        auto value = [&](const char *key) { // a wait or gap of 0 is left out
          return dst.args.count(key) ? std::get<double>(dst.args.at(key)) : 0.0;
        };
        EXPECT_NEAR(value("wait_ns"), h.wait_ns, 0.001) << x.what;
        EXPECT_NEAR(value("gap_ns"), h.gap_ns, 0.001) << x.what;
        EXPECT_EQ(dst.args.count("wait_cycles") ? std::get<uint64_t>(dst.args.at("wait_cycles"))
                                                : 0,
                  uint64_t(std::llround(h.wait_cycles)))
            << x.what;
        ++checked;
      }
    EXPECT_EQ(checked, x.trace->flows.size()) << x.what;
  }
}

const Exported &find(const std::string &what) {
  for (const Exported &x : all_exports())
    if (x.what == what)
      return x;
  static Exported none;
  ADD_FAILURE() << "no export " << what;
  return none;
}

const pftrace_read::Event *first_named(const pftrace_read::Trace &t, const std::string &prefix) {
  for (const pftrace_read::Event &e : t.events)
    if (e.name.rfind(prefix, 0) == 0)
      return &e;
  return nullptr;
}

TEST(PftraceRules, AnOverflowedLaunchSaysWhatItDroppedOnTheLaunchRowsAndSlices) {
  const Exported &x = find("h200/ws_gemm_overflow.ctrace (launch)");
  const pftrace_read::Event *launch = first_named(x.read, "ws_gemm [INCOMPLETE]");
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(std::get<bool>(launch->args.at("complete")), false);
  EXPECT_EQ(std::get<uint64_t>(launch->args.at("dropped_events")), 984u);
  EXPECT_EQ(std::get<uint64_t>(launch->args.at("incomplete_slices")), 24u);
  EXPECT_EQ(std::count_if(x.read.events.begin(), x.read.events.end(),
                          [](const pftrace_read::Event &e) { return e.args.count("incomplete"); }),
            24);
  size_t row_tracks = 0, marked = 0;
  for (const pftrace_read::Track &t : x.read.tracks)
    if (t.name.find(" / ") != std::string::npos) {
      ++row_tracks;
      marked += t.name.find("dropped]") != std::string::npos;
    }
  EXPECT_GT(row_tracks, 0u);
  EXPECT_EQ(marked, row_tracks); // every row of this launch overflowed
}

TEST(PftraceRules, ATrappedLaunchMarksTheRowThatNeverEnded) {
  const Exported &x = find("h200/doomed_mapped.ctrace (launch)");
  const pftrace_read::Event *launch = first_named(x.read, "doomed");
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(std::get<uint64_t>(launch->args.at("rows_never_ended")), 1u);
  EXPECT_EQ(std::count_if(x.read.events.begin(), x.read.events.end(),
                          [](const pftrace_read::Event &e) { return e.args.count("never_ended"); }),
            1);
}

TEST(PftraceRules, EveryRunSaysItsCompletenessOnItsRunTrack) {
  for (const Exported &x : all_exports()) {
    if (x.trace)
      continue;
    const pftrace_read::Event *run = first_named(x.read, "run: ");
    ASSERT_NE(run, nullptr) << x.what;
    const RunCompleteness c = run_completeness(*x.run);
    EXPECT_EQ(std::get<std::string>(run->args.at("completeness")), run_completeness_text(c))
        << x.what;
    if (!c.complete())
      EXPECT_EQ(run->name, "run: INCOMPLETE") << x.what;
    size_t not_decoded = 0;
    for (const pftrace_read::Event &e : x.read.events)
      not_decoded += e.name.rfind("not decoded: ", 0) == 0;
    EXPECT_EQ(not_decoded, c.undecoded.size()) << x.what;
  }
}

// The compact encoding (times on the sequence's incremental clock, flow ids as varints, source
// locations interned) reads back as the same events as the plain one (absolute times, fixed64
// flow ids, a "loc" annotation): times, types, tracks, names, arguments and flows, each event's
// source location the file and line of the plain one's "loc"; and it is smaller.
TEST(PftraceRules, TheCompactEncodingReadsBackAsThePlainOne) {
  size_t located = 0, absolute = 0;
  for (const Exported &x : all_exports()) {
    const std::string plain_bytes =
        x.trace ? launch_bytes(*x.map, *x.trace, PftraceEncoding::plain)
                : run_bytes(*x.run, x.what.find("streamed") != std::string::npos,
                            PftraceEncoding::plain);
    const pftrace_read::Trace plain = pftrace_read::read(plain_bytes);
    EXPECT_TRUE(plain.problems.empty()) << x.what;
    EXPECT_EQ(plain.incremental_timestamps, 0u) << x.what;
    EXPECT_GT(x.read.incremental_timestamps, 0u) << x.what;
    // The clock snapshot costs a tiny trace its few bytes; anything larger is smaller.
    EXPECT_LE(x.bytes.size(), plain_bytes.size() + 32) << x.what;
    if (plain_bytes.size() > 65536)
      EXPECT_LT(x.bytes.size(), plain_bytes.size()) << x.what;
    ASSERT_EQ(x.read.events.size(), plain.events.size()) << x.what;
    ASSERT_EQ(x.read.tracks.size(), plain.tracks.size()) << x.what;
    size_t differ = 0;
    for (size_t i = 0; i < plain.events.size(); ++i) {
      const pftrace_read::Event &c = x.read.events[i], &p = plain.events[i];
      std::map<std::string, pftrace_read::Value> args = p.args;
      std::string file;
      uint64_t line = 0;
      if (auto loc = args.find("loc"); loc != args.end()) { // "file:line:col"
        const std::string text = std::get<std::string>(loc->second);
        const size_t col = text.rfind(':'), at = text.rfind(':', col - 1);
        file = text.substr(0, at);
        line = std::stoull(text.substr(at + 1, col - at - 1));
        args.erase(loc);
        ++located;
      }
      const bool same = c.ts == p.ts && c.type == p.type && c.track == p.track &&
                        c.name == p.name && c.args == args && c.flows_out == p.flows_out &&
                        c.flows_in == p.flows_in && c.source_file == file && c.source_line == line;
      if (!same && differ++ < 3)
        ADD_FAILURE() << x.what << ": event " << i << " '" << p.name << "' at " << p.ts
                      << " reads back as '" << c.name << "' at " << c.ts << " on track "
                      << c.track << " (plain: " << p.track << "), source " << c.source_file
                      << ":" << c.source_line << " (plain: " << file << ":" << line << ")";
    }
    EXPECT_EQ(differ, 0u) << x.what;
    for (size_t i = 0; i < plain.tracks.size(); ++i)
      EXPECT_TRUE(x.read.tracks[i].uuid == plain.tracks[i].uuid &&
                  x.read.tracks[i].name == plain.tracks[i].name &&
                  x.read.tracks[i].parent == plain.tracks[i].parent)
          << x.what;
    absolute += x.read.absolute_timestamps;
  }
  EXPECT_GT(located, 1000u);
  // Runs whose launches overlap go back in time: those events give absolute times.
  EXPECT_GT(absolute, 0u);
}

TEST(PftraceRules, ARunStreamedLaunchByLaunchIsTheRunWrittenFromMemory) {
  for (const std::string &path : fixtures()) {
    Expected<cutrace::Run> full = read_run_file(path);
    ASSERT_TRUE(full) << path;
    const RunTrace run = *decode_run(*full, path);
    const std::string streamed = [&] {
      RunReadOptions lean;
      lean.max_buffer_bytes = 0;
      const RunTrace lean_run = *decode_run(*read_run_file(path, lean), path);
      return run_bytes(lean_run, true);
    }();
    EXPECT_TRUE(run_bytes(run, false) == streamed) << path;
  }
}

} // namespace
} // namespace cutrace
