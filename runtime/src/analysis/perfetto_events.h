// Chrome Trace Event writing shared by the launch export (export_perfetto.cpp) and the run export
// (export_run_perfetto.cpp): where a launch's slices, instants and flow ends go (one track per
// row, lane and nesting level) and how each event is written. Internal to cutrace_analysis.
#ifndef CUTRACE_ANALYSIS_PERFETTO_EVENTS_H
#define CUTRACE_ANALYSIS_PERFETTO_EVENTS_H

#include <cutrace/decode.h>

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace cutrace::perfetto {

std::string json_string(const std::string &s);
std::string us(double ns); // microseconds with nanosecond resolution

// The launch an event belongs to.
struct LaunchSource {
  const DecodeMap *map = nullptr;
  const Trace *trace = nullptr;
  uint64_t first_flow_id = 1; // flow f of the launch has id first_flow_id + f
  // Run export: args naming each row's kernel, launch, CTA and group, and each lane, added to
  // its slices and instants, since an SM track holds rows of many launches. Empty: none.
  std::vector<std::string> row_args, lane_args;
  // Per TRACE_DAG destination slice (row, slice): its hand-off's source, wait and gap
  // (cutrace/analysis.h), added to its args (add_handoff_args).
  std::map<std::pair<uint32_t, uint32_t>, std::string> handoff_args;
};

// The LaunchSource::handoff_args of its trace's flows (the first flow of a dst slice counts).
void add_handoff_args(LaunchSource &source);

// The LaunchSource::row_args and lane_args of launch `sequence`.
void add_run_args(LaunchSource &source, uint64_t sequence);

enum class Ph { slice, instant, flow_start, flow_end };

// Times are whole ns on the export's axis (the decoder's ns rounded), so that what the JSON says
// in microseconds with 3 decimals is exact and rounding keeps nested slices nested.
struct Event {
  double ts;    // ns on the export's axis
  double order; // ties: longer slices first so parents precede children
  Ph ph;
  uint32_t row;   // index into trace.rows (slices, instants)
  uint32_t index; // slice, instant or flow index
  const LaunchSource *source;
  double end = 0; // slices: their end (ns on the export's axis)
};

// A track of the launch layout: slices of one lane of one row that nest properly.
struct RowTrack {
  uint32_t row, lane, level;
  bool operator<(const RowTrack &o) const {
    return std::tie(row, lane, level) < std::tie(o.row, o.lane, o.level);
  }
};

// Every slice, instant and flow end of the launch on its track, at offset_ns + its time. A row
// that started without events keeps an empty track (lane 0): its group is still named. A flow's
// start and finish go where their slice is the innermost one open on its track (the slice the
// importer binds them to): the start at src's begin, the finish at the landing point inside dst,
// each moved past any slice nested in theirs that covers that point. Without `flow_points` flows
// are left out (the protobuf export binds them to slice events itself).
std::map<RowTrack, std::vector<Event>> row_tracks(const LaunchSource &source, double offset_ns,
                                                  bool flow_points = true);

// "CTA (x,y,z)" of a row's CTA.
std::string cta_label(const Trace &trace, uint32_t cta);
// "row / lane" (the row's label: its group's name, or "consumer[w3]" for a slice's row), "(n)"
// added for a nesting level past the first.
std::string track_name(const DecodeMap &map, const Row &row, uint32_t lane, uint32_t level);

// The JSON document, event by event: text, not a JSON tree, so a million events stay cheap.
class TraceEventWriter {
public:
  explicit TraceEventWriter(const std::string &other_data);         // a JSON object
  void process(uint64_t pid, const std::string &name);              // sorted by pid
  void thread(uint64_t pid, uint64_t tid, const std::string &name); // sorted by tid
  // Sorts `events` by time and writes them on (pid, tid).
  void events(uint64_t pid, uint64_t tid, std::vector<Event> &events);
  void event(const std::string &json); // one complete event object
  std::string finish();

private:
  void write(const std::string &where, const Event &e);
  std::string out_, line_; // line_: the event being written, reused

  bool first_ = true;
};

} // namespace cutrace::perfetto

#endif // CUTRACE_ANALYSIS_PERFETTO_EVENTS_H
