// One launch's rows as Perfetto TrackEvents (docs/viewer.md, "Perfetto"), shared by the launch
// export (export_pftrace.cpp, a track per CTA row) and the run export (export_run_pftrace.cpp,
// tracks per SM slot). Each row's slices go onto as few tracks as keep them nested (one per lane
// and nesting level, perfetto_events.h); on each such track a row slice spans the row and names
// its group, CTA and gaps, and the row's slices and instants nest inside it. A TRACE_DAG flow
// leaves its source slice's BEGIN and arrives at its destination's BEGIN (its END when the
// destination began first). Internal to cutrace_analysis.
#ifndef CUTRACE_ANALYSIS_PFTRACE_ROWS_H
#define CUTRACE_ANALYSIS_PFTRACE_ROWS_H

#include "perfetto_events.h"
#include "pftrace_writer.h"

#include <cutrace/decode.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace cutrace::pftrace {

// A row of the launch with something to show, and its span on the export's axis (whole ns).
struct RowSpan {
  uint32_t row = 0;                       // index into Trace::rows
  std::vector<perfetto::RowTrack> tracks; // the tracks it needs: one per (lane, nesting level)
  int64_t begin = 0, end = 0;
};

class LaunchRows {
public:
  // `offset_ns`: the trace's origin on the export's axis; flow f gets id first_flow_id + f.
  // `sequence`: the launch's sequence number in a run (an arg of each row slice).
  LaunchRows(const DecodeMap &map, const Trace &trace, double offset_ns, uint64_t first_flow_id,
             std::optional<uint64_t> sequence);
  const std::vector<RowSpan> &rows() const { return rows_; }
  // Writes every row, its k-th track being track_of(row index, k), in time order.
  void write(TraceWriter &out, const std::function<uint64_t(uint32_t row, uint32_t k)> &track_of);

private:
  const DecodeMap &map_;
  const Trace &trace_;
  double offset_ns_;
  perfetto::LaunchSource source_;
  std::optional<uint64_t> sequence_;
  std::map<perfetto::RowTrack, std::vector<perfetto::Event>> tracks_;
  std::vector<RowSpan> rows_;
};

// Tracks per SM slot under one parent track (a GPU's in the run export, a profiler stream's in
// the torch.profiler merge): a slot holds one row at a time, so the rows of every launch written
// through it share few tracks and never overlap on one. Track ranks start at `first_rank`.
class SmSlotTracks {
public:
  SmSlotTracks(uint64_t parent, int64_t first_rank) : parent_(parent), first_rank_(first_rank) {}
  // The launch's rows, its trace's origin at `offset_ns` on the export's axis.
  void write(TraceWriter &out, const DecodeMap &map, const Trace &trace, double offset_ns,
             uint64_t first_flow_id, std::optional<uint64_t> sequence);

private:
  uint64_t parent_;
  int64_t first_rank_;
  std::map<uint32_t, std::vector<int64_t>> slot_end_; // per SM: the end of each slot's last row
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint64_t> tracks_; // (smid, slot, k)
};

// " [40 dropped, never ended]": what a row did not record, or "".
std::string row_gaps(const Row &row);

} // namespace cutrace::pftrace

#endif // CUTRACE_ANALYSIS_PFTRACE_ROWS_H
