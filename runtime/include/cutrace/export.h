// Exports of a decoded launch (docs/viewer.md): the self-contained HTML timeline, Chrome Trace
// Event JSON for ui.perfetto.dev, and the terminal summary. Pure C++17, no CUDA: part of library
// `cutrace_analysis` (used by `trace-view` and by the automatic mode of library `cutrace`).
// Every export reads the decoded Trace; none decodes.
#ifndef CUTRACE_EXPORT_H
#define CUTRACE_EXPORT_H

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <cutrace/decode.h>

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
// The trace with only the rows (and flows) of one CTA; counters that belong to the whole launch
// (flows skipped, problems) are kept.
Trace restrict_to_cta(const Trace &trace, uint32_t cta_linear);

// ---- HTML (one self-contained file, canvas viewer, no network) ----

struct HtmlOptions {
  std::optional<uint32_t> initial_cta; // view opened first; default: whole grid (one CTA: it)
};
std::string export_html(const DecodeMap &map, const Trace &trace, const HtmlOptions &options = {});

// ---- Chrome Trace Event JSON (Perfetto) ----

// A process per CTA, a thread per (group, lane); X slices, i instants, s/f flows, M names;
// timestamps in microseconds on the global axis, relative to Trace::origin_ns.
std::string export_perfetto(const DecodeMap &map, const Trace &trace);

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
  uint32_t rows = 0;  // CTAs in which the group ran
  double busy_ns = 0; // union of the group's slices, summed over its rows
  double span_ns = 0; // row start to row end, summed over its rows
  double busy_fraction() const { return span_ns > 0 ? busy_ns / span_ns : 0; }
};

struct SmSummary {
  uint32_t smid = 0;
  uint32_t ctas = 0;
  double first_start_ns = 0, last_end_ns = 0; // relative to Trace::origin_ns
};

struct TraceSummary {
  std::string kernel;
  BufferHeader header;
  std::vector<EventSummary> events; // sorted by name
  std::vector<GroupSummary> groups; // in group index order
  std::vector<SmSummary> sms;       // by SM id
  uint64_t slices = 0, instants = 0, flows = 0;
  uint64_t dropped = 0, incomplete = 0, unmatched_ends = 0, unknown_sites = 0, invalid_records = 0;
  uint32_t backward_flows = 0, unpaired_flows = 0;
  uint32_t rows_started = 0, rows_killed = 0; // killed: started but no end header
  double min_ghz = 0, max_ghz = 0;            // over measured rows
  uint32_t rows_measured = 0;
  struct RowRate {
    uint32_t row = 0, cta = 0, group = 0, smid = 0;
    double ghz = 0;
    RateSource source = RateSource::default_rate;
  };
  std::vector<RowRate> rates; // every started row: its rate and where it came from
  std::vector<std::string> problems;
};

TraceSummary summarize(const DecodeMap &map, const Trace &trace);
// Aligned terminal tables.
std::string format_summary(const TraceSummary &summary);

} // namespace cutrace

#endif // CUTRACE_EXPORT_H
