// Exports of a decoded launch (docs/viewer.md): the self-contained HTML timeline, Chrome Trace
// Event JSON for ui.perfetto.dev, and the terminal summary. Pure C++17, no CUDA: part of library
// `cutrace_analysis` (used by `trace-view` and by the automatic mode of library `cutrace`).
// Every export reads the decoded Trace; none decodes.
#ifndef CUTRACE_EXPORT_H
#define CUTRACE_EXPORT_H

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <cutrace/completeness.h>
#include <cutrace/decode.h>
#include <cutrace/run_trace.h>

namespace cutrace {

// ---- Shared geometry ----

// blockIdx of a linear CTA index (cta_linear = x + y * gx + z * gx * gy).
std::array<uint32_t, 3> cta_coords(const BufferHeader &header, uint32_t cta_linear);
// A row's start on the global axis, ns since trace.origin_ns (the launch's earliest row start,
// so exports show global times from 0).
double row_start_ns(const Trace &trace, const Row &row);
// Last known global time of a row (ns since trace.origin_ns): its end header, else its last
// event, else its start.
double row_end_ns(const Trace &trace, const Row &row);

// Appended to the name of an incomplete slice in the Perfetto exports: its END was not recorded,
// so the length drawn (to the row's last timestamp) is not how long it ran.
inline constexpr const char *kIncompleteSuffix = " (incomplete: end not recorded)";
// The trace with only the rows (and flows) of one CTA; counters that belong to the whole launch
// (flows skipped, problems) are kept.
Trace restrict_to_cta(const Trace &trace, uint32_t cta_linear);

// ---- HTML (one self-contained file, canvas viewer, no network) ----

struct HtmlOptions {
  std::optional<uint32_t> initial_cta; // view opened first; default: whole grid (one CTA: it)
};
std::string export_html(const DecodeMap &map, const Trace &trace, const HtmlOptions &options = {});

// A whole run (docs/viewer.md, "The HTML of a whole run"): opens at the run overview, every launch
// a span per process, GPU and stream on the run axis; a launch opens in the views above. The page
// stays within max_bytes: the overview is always there, then the detail of the first launch of each
// kernel, then of the others by sequence, while it fits; the page says what it left out.
struct RunHtmlOptions {
  uint64_t max_bytes = 100ull << 20;
};
std::string export_run_html(const RunTrace &run, const RunHtmlOptions &options = {});

// ---- Chrome Trace Event JSON (Perfetto) ----

// A process per CTA, a thread per (group, lane); X slices, i instants, s/f flows, M names;
// timestamps in microseconds on the global axis, relative to Trace::origin_ns.
std::string export_perfetto(const DecodeMap &map, const Trace &trace);

// ---- Perfetto's native trace format (protobuf, `.pftrace`) ----

// Takes the next bytes of an output, in order; false when they cannot be written.
using ByteSink = std::function<bool(std::string_view)>;

// How the trace is encoded (docs/viewer.md, "Perfetto"). compact: timestamps on an incremental
// clock, flow ids as varints, source locations interned; plain: absolute timestamps, fixed64
// flow ids, the source location as a "loc" annotation. Both read as the same events; plain is
// there for the tests to show it.
enum class PftraceEncoding { compact, plain };

// One launch (docs/viewer.md, "Perfetto"): a track named by the kernel with a slice over the
// launch carrying its completeness; under it a track per CTA, under each a track per (row, lane,
// nesting level) with a slice per row and its slices, instants and TRACE_DAG flows inside.
// Bytes go to `sink` about 1 MB at a time; false when the sink refused them.
bool write_perfetto_trace(const DecodeMap &map, const Trace &trace, const ByteSink &sink,
                          PftraceEncoding encoding = PftraceEncoding::compact);

struct RunPerfettoOptions {
  // Reads the records of a launch the run holds without them (cutrace::with_detail): the trace
  // is then written launch by launch, one launch's records in memory at a time.
  std::function<std::optional<RunLaunch>(const RunLaunch &)> load_detail;
  PftraceEncoding encoding = PftraceEncoding::compact;
};
// A whole run, launch by launch in the order they began (docs/viewer.md, "Runs in Perfetto and
// in the summary"): a track per (process, GPU) holding a "host" track of enqueue instants, a
// track per stream with a slice per launch, and tracks per SM slot with the rows of every launch;
// a "run" track with the run's completeness and each launch not decoded. Returns the reason
// when the trace could not be written whole.
std::optional<std::string> write_run_perfetto_trace(const RunTrace &run, const ByteSink &sink,
                                                    const RunPerfettoOptions &options = {});

// ---- Summary ----

struct Durations {
  double total = 0, mean = 0, p50 = 0, p95 = 0, max = 0; // nearest-rank percentiles
};

struct EventSummary {
  std::string name;
  bool instant = false; // instants have a count only
  uint64_t count = 0;
  uint64_t incomplete = 0;
  Durations cycles, ns;
};

struct GroupSummary {
  std::string name;
  uint32_t rows = 0;  // rows of the group that started (one per CTA unless it is sliced)
  uint32_t ctas = 0;  // CTAs in which the group ran
  double busy_ns = 0; // union of the group's slices, summed over its rows
  double span_ns = 0; // row start to row end, summed over its rows
  double busy_fraction() const { return span_ns > 0 ? busy_ns / span_ns : 0; }
};

// One slice of a TRACE_GROUPS group (e.g. warp 3: "consumer[w3]"), over the CTAs where its row
// started.
struct SliceRowSummary {
  uint32_t slice = 0;
  std::string label;
  uint32_t rows = 0;   // rows of this slice that started (one per CTA)
  uint64_t events = 0; // slices and instants decoded from them
  double busy_ns = 0;  // union of the row's slices over its life, summed over its rows
  double span_ns = 0;  // row start to row end, summed over its rows
  double busy_fraction() const { return span_ns > 0 ? busy_ns / span_ns : 0; }
};

// Smallest, median (nearest rank) and largest value.
struct Spread {
  double min = 0, median = 0, max = 0;
};
Spread spread_of(std::vector<double> values);

// A TRACE_GROUPS group's slices side by side, and how unequal they are: the spread of busy time
// and of event counts over its slices (docs/viewer.md, "Summary").
struct SliceGroupSummary {
  uint32_t group = 0;
  std::string name;
  uint32_t slice_threads = 0, first_thread = 0;
  std::vector<SliceRowSummary> slices; // by slice index; only slices whose row started
  Spread busy_ns, busy_fraction, events;
};

// Per-slice statistics of every sliced group of `map`, over the rows of all `traces` (launches
// of the one kernel the map describes).
std::vector<SliceGroupSummary> summarize_slices(const DecodeMap &map,
                                                const std::vector<const Trace *> &traces);

struct SmSummary {
  uint32_t smid = 0;
  uint32_t ctas = 0;
  double first_start_ns = 0, last_end_ns = 0; // relative to Trace::origin_ns
};

struct TraceSummary {
  std::string kernel;
  BufferHeader header;
  std::vector<EventSummary> events;            // sorted by name
  std::vector<GroupSummary> groups;            // in group index order
  std::vector<SliceGroupSummary> slice_groups; // the TRACE_GROUPS groups, in group index order
  std::vector<SmSummary> sms;                  // by SM id
  uint64_t slices = 0, instants = 0, flows = 0;
  uint64_t dropped = 0, incomplete = 0, unmatched_ends = 0, unknown_sites = 0, invalid_records = 0;
  uint32_t backward_flows = 0, unpaired_flows = 0;
  uint32_t rows_started = 0, rows_killed = 0; // killed: started but no end header
  std::optional<MarkerCost> marker_cost;       // taken out inside slices when set
  double min_ghz = 0, max_ghz = 0;            // over measured rows
  uint32_t rows_measured = 0;
  struct RowRate {
    uint32_t row = 0, cta = 0, group = 0, smid = 0;
    double ghz = 0;
    RateSource source = RateSource::default_rate;
    std::string label;   // "warp[w3]", or the group's name (Row::label)
    bool sliced = false; // a TRACE_GROUPS slice row
  };
  std::vector<RowRate> rates; // every started row: its rate and where it came from
  std::vector<std::string> problems;
  Completeness completeness;
};

TraceSummary summarize(const DecodeMap &map, const Trace &trace);
// Aligned terminal tables.
std::string format_summary(const TraceSummary &summary);
// The per-slice and imbalance tables of sliced groups ("" when there are none), lines indented.
std::string format_slice_groups(const std::vector<SliceGroupSummary> &groups,
                                const std::string &indent);
// Total, mean and nearest-rank percentiles of samples.
Durations durations_of(std::vector<double> values);

// ---- Runs: every launch of one or more processes on one axis (cutrace/run_trace.h) ----

struct RunTrace;

// Chrome Trace Event JSON of a run (docs/viewer.md, "Runs in Perfetto and in the summary"): a
// process per (process, GPU); in it a thread per stream with one complete event per launch, a
// "host" thread with each launch's enqueue instant (aligned host clock only), and threads per SM
// holding every launch's slices, instants and flows at their run-axis time, in microseconds
// since RunTrace::origin_ns.
std::string export_run_perfetto(const RunTrace &run);

struct RunKernelSummary {
  std::string kernel;
  uint64_t launches = 0;
  // Its TRACE_GROUPS groups over the launches whose records were read (RunLaunch::detail).
  std::vector<SliceGroupSummary> slice_groups;
  Durations duration_ns;               // launch end - begin
  uint64_t enqueued = 0;               // launches with a host enqueue time
  double mean_enqueue_to_start_ns = 0; // begin - enqueue, over those
};

struct RunStreamSummary {
  uint64_t stream = 0;
  uint64_t launches = 0;
  double first_begin_ns = 0, last_end_ns = 0; // on the run axis
  double busy_ns = 0;                         // union of the stream's launches
  uint64_t gaps = 0;                          // idle intervals between consecutive launches
  double gap_total_ns = 0, gap_max_ns = 0;
};

struct RunDeviceSummary {
  uint32_t device = 0;                   // index into RunTrace::devices
  std::vector<RunKernelSummary> kernels; // by name
  std::vector<RunStreamSummary> streams; // by stream id
};

struct RunSummary {
  uint64_t launches = 0;
  double span_ns = 0;                    // earliest begin to latest end
  std::vector<RunDeviceSummary> devices; // in RunTrace::devices order
};

RunSummary summarize_run(const RunTrace &run);
// Per process: launches seen and recorded per kernel; per GPU: the clock alignment, launch
// durations per kernel, busy time and idle gaps per stream.
std::string run_summary(const RunTrace &run);
// The same numbers (ns) and every launch (begin, end, kernel, index, device, stream) as JSON.
std::string run_summary_json(const RunTrace &run);

} // namespace cutrace

#endif // CUTRACE_EXPORT_H
