// Chrome Trace Event JSON of one launch (opens in ui.perfetto.dev and chrome://tracing): a process
// per CTA, a thread per (row, lane) named by the row's label ("consumer[w3] / main"), complete
// events for slices, instants, flow events for TRACE_DAG. The event layout and writing are shared
// with the run export (perfetto_events.h).
#include "completeness_json.h"
#include "perfetto_events.h"

#include <cutrace/export.h>

namespace cutrace {

namespace {

// " [40 dropped, never ended]": what a row's track did not record, or "".
std::string row_gaps(const Row &row) {
  std::string out;
  if (row.dropped)
    out += std::to_string(row.dropped) + " dropped";
  if (row.never_ended())
    out += std::string(out.empty() ? "" : ", ") + "never ended";
  return out.empty() ? out : " [" + out + "]";
}

} // namespace

std::string export_perfetto(const DecodeMap &map, const Trace &t) {
  using namespace perfetto;
  LaunchSource source;
  source.map = &map;
  source.trace = &t;
  add_handoff_args(source);
  std::map<RowTrack, std::vector<Event>> tracks = row_tracks(source, 0);
  // Threads numbered per CTA in (row, lane, level) order.
  std::map<uint32_t, std::vector<std::pair<RowTrack, std::vector<Event> *>>> ctas;
  for (auto &[key, events] : tracks)
    ctas[t.rows[key.row].cta].emplace_back(key, &events);

  TraceEventWriter out("{\"kernel\":" + json_string(t.kernel) +
                       ",\"origin_globaltimer_ns\":" + std::to_string(t.origin_ns) +
                       ",\"completeness\":" + completeness_json(completeness_of(t)).dump() + "}");
  for (auto &[cta, threads] : ctas) {
    const uint64_t pid = uint64_t(cta) + 1;
    uint32_t smid = 0;
    for (const Row &row : t.rows)
      if (row.cta == cta && row.started) {
        smid = row.smid;
        break;
      }
    out.process(pid, cta_label(t, cta) + " on SM " + std::to_string(smid));
    uint64_t tid = 0;
    for (auto &[key, events] : threads) {
      out.thread(pid, ++tid,
                 track_name(map, t.rows[key.row], key.lane, key.level) + row_gaps(t.rows[key.row]));
      out.events(pid, tid, *events);
    }
  }
  return out.finish();
}

} // namespace cutrace
