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
};

// The LaunchSource::row_args and lane_args of launch `sequence`.
void add_run_args(LaunchSource &source, uint64_t sequence);

enum class Ph { slice, instant, flow_start, flow_end };

struct Event {
  double ts;    // ns on the export's axis
  double order; // ties: longer slices first so parents precede children
  Ph ph;
  uint32_t row;   // index into trace.rows (slices, instants)
  uint32_t index; // slice, instant or flow index
  const LaunchSource *source;
};

// A track of the launch layout: slices of one lane of one row that nest properly.
struct RowTrack {
  uint32_t row, lane, level;
  bool operator<(const RowTrack &o) const {
    return std::tie(row, lane, level) < std::tie(o.row, o.lane, o.level);
  }
};

// Every slice, instant and flow end of the launch on its track, at offset_ns + its time. A row
// that started without events keeps an empty track (lane 0): its group is still named.
std::map<RowTrack, std::vector<Event>> row_tracks(const LaunchSource &source, double offset_ns);

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
