// Decoding a launch's trace buffer into slices, instants and flows (docs/FORMAT.md, "Decoding").
// Pure C++17, no CUDA: library `cutrace_analysis` (the buffer header codec: `cutrace_format`).
// Corrupt or truncated input never crashes or reads out of bounds; problems are returned as values
// next to whatever could still be decoded.
#ifndef CUTRACE_DECODE_H
#define CUTRACE_DECODE_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <cutrace/expected.h>
#include <cutrace/map.h>

namespace cutrace {

// ---- Decode map (the JSON trace-rewrite emits per kernel) ----

enum class SiteKind { range, range_start, record };

struct Site {
  uint32_t id = 0;
  SiteKind kind = SiteKind::range;
  std::string name;
  uint32_t lane = 0;  // index into DecodeMap::lanes
  uint32_t group = 0; // index into DecodeMap::groups
  std::string loc;    // "file:line:col" of the annotation
};

struct GroupInfo {
  uint32_t index = 0;
  std::string name;
  std::string lead; // the lead expression as written ("slice" for a TRACE_GROUPS group)
  // TRACE_GROUPS: one row per slice of slice_threads threads from linear thread first_thread on
  // (docs/FORMAT.md, "Rows of a CTA"). 0: a TRACE_GROUP group, one row per CTA.
  uint32_t slice_threads = 0, first_thread = 0;
  bool sliced() const { return slice_threads != 0; }
};

struct FlowDecl {
  std::string src, dst; // range names
};

struct DecodeMap {
  uint32_t format_version = kFormatVersion;
  std::string kernel, source;
  uint32_t max_events = 0;
  Clock clock = Clock::clock64;
  std::vector<GroupInfo> groups;
  std::vector<std::string> lanes;
  std::vector<Site> sites;
  std::vector<FlowDecl> flows;

  const Site *site(uint32_t id) const; // nullptr when the map has no such site
  bool any_sliced() const;             // some group is a TRACE_GROUPS group
};

Expected<DecodeMap> parse_decode_map(const std::string &json);

// ---- Rows of a CTA (docs/FORMAT.md, "Rows of a CTA") ----

inline constexpr uint32_t kNoSlice = UINT32_MAX;

// Which group, and which slice of it, one row of a CTA belongs to.
struct RowPlace {
  uint32_t group = 0;
  uint32_t slice = kNoSlice;            // kNoSlice: a TRACE_GROUP row
  std::optional<uint32_t> first_thread; // the slice's first linear thread, or a literal lead
};

// The rows of every CTA of a launch with `block` threads: groups in index order, a TRACE_GROUP
// group one row, a TRACE_GROUPS group slices_in(threads, size, first) rows. Computed per group,
// never per row, so a corrupt header cannot make it large.
class RowPlan {
public:
  RowPlan(const DecodeMap &map, const uint32_t block[3]);
  // Rows per CTA the map gives for this block (what header word 2 must say).
  uint64_t rows_per_cta() const { return rows_; }
  // The place of row `row_in_cta`; past the plan (a header that disagrees with the map) it is
  // group `row_in_cta`, unsliced, as the decoder has always placed rows.
  RowPlace place(uint32_t row_in_cta) const;

private:
  const DecodeMap &map_;
  uint32_t block_threads_;
  std::vector<uint64_t> first_row_; // per group: its first row in the CTA
  uint64_t rows_ = 0;
};

// `name[wN]` (32-thread slices), `name[wgN]` (128), `name[tN]` (other sizes; N the first thread),
// the group's name for a TRACE_GROUP row, `#g` for a group the map does not have.
std::string row_label(const DecodeMap &map, const RowPlace &place);

// ---- Buffer header (first 64 bytes of the device buffer) ----

struct BufferHeader {
  uint32_t magic = kBufferMagic;
  uint32_t version = kFormatVersion;
  uint32_t num_groups = 0;
  uint32_t max_events = 0;
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  Clock clock = Clock::clock64;
  uint32_t row_stride_bytes = 0;
  uint32_t num_rows = 0;
  // The device's peak SM clock (cudaDevAttrClockRate) in kHz, written by the host runtime;
  // 0 = unknown (buffers written before this word was used). The decoder's last-resort rate.
  uint32_t device_clock_khz = 0;
  // Versions 2 and 3 (word 14): full (rows at row_stride_bytes) or compact (row headers, then the
  // stored records back to back; bytes 60-63 of each row header count them).
  BufferLayout layout = BufferLayout::full;
  // Word 15, bits 16-31: 1 CTA in cta_stride recorded (those whose linear index is a multiple
  // of it), each whole; the rows are theirs only (docs/FORMAT.md, "Buffer header").
  uint32_t cta_stride = 1;
  // Word 15, bit 1: the host chose max_events at launch (kRowsSizedAtLaunchFlag); false in
  // buffers written before the bit was used.
  bool rows_sized_at_launch = false;

  // Header for a launch of `map` (what the host runtime writes before the kernel runs).
  // `version`: kRecordFormatVersion (8-byte records, what the device writes), or 1 for a buffer
  // of 16-byte records (tests of the earlier layout).
  static BufferHeader for_launch(uint32_t num_groups, uint32_t max_events, Clock clock,
                                 const uint32_t grid[3], const uint32_t block[3],
                                 uint32_t version = kRecordFormatVersion);
  // Bytes per record slot: 8 in version 3, 16 in versions 1 and 2.
  uint32_t record_bytes() const { return cutrace::record_bytes(version); }
  uint64_t num_ctas() const { return uint64_t(grid[0]) * grid[1] * grid[2]; }
  // The CTAs with rows in the buffer: every one, or 1 in cta_stride (0, cta_stride, ...).
  uint64_t recorded_ctas() const { return (num_ctas() + cta_stride - 1) / cta_stride; }
  // The CTA row `row` belongs to.
  uint64_t cta_of_row(uint64_t row) const { return row / num_groups * cta_stride; }
  // Records 1 CTA in `stride` (1: every CTA): num_rows follows.
  void set_cta_stride(uint32_t stride);
  // The full layout's size (what the device buffer holds).
  uint64_t buffer_bytes() const {
    return kBufferHeaderBytes + uint64_t(num_rows) * row_stride_bytes;
  }
};

void encode_buffer_header(const BufferHeader &header, uint8_t out[kBufferHeaderBytes]);
// Reads and validates magic, version and the size relations between the fields.
Expected<BufferHeader> parse_buffer_header(const uint8_t *data, size_t size);

// ---- Decoded trace ----

struct Slice {
  uint32_t site = 0;
  std::string name;
  uint32_t lane = 0;
  int32_t payload = 0;
  uint64_t begin_cycles = 0, end_cycles = 0; // per-CTA view: cycles since the CTA's first event
  double begin_ns = 0, end_ns = 0;           // global view: ns since Trace::origin_ns
  bool incomplete = false;                   // BEGIN never closed; ends at the row's last timestamp
};

struct Instant {
  uint32_t site = 0;
  std::string name;
  uint32_t lane = 0;
  int32_t payload = 0;
  uint64_t cycles = 0; // per-CTA view
  double ns = 0;       // global view: ns since Trace::origin_ns
};

// Where a row's cycles->ns rate came from, best first (docs/FORMAT.md, "Decoding").
enum class RateSource {
  measured,         // the row's own start/end pairs
  sm_pooled,        // all pairs of the rows that ran on the row's SM (clock64 is per SM)
  launch_median,    // median of the rates measured in this launch
  launch_pooled,    // no row measurable: Σcycles / Σns over all the launch's short closed rows
  device_attribute, // the buffer header's device_clock_khz (peak clock)
  default_rate,     // DecodeOptions::default_ghz
  override_rate,    // DecodeOptions::ghz_override
};
const char *rate_source_name(RateSource source); // "measured", "SM-pooled", ...

struct Row {
  uint32_t index = 0;      // row number in the buffer
  uint32_t cta = 0;        // linear CTA index
  uint32_t row_in_cta = 0; // index % rows per CTA (docs/FORMAT.md, "Rows of a CTA")
  uint32_t group = 0;
  uint32_t slice = kNoSlice;            // slice of a TRACE_GROUPS group; kNoSlice otherwise
  std::optional<uint32_t> first_thread; // the thread that writes the row, when known
  std::string label;                    // "consumer[w3]", or the group's name (row_label)
  uint32_t smid = 0;
  bool started = false; // start tag seen
  bool closed = false;  // end tag seen (the group's scope exited normally)
  // Raw header pairs: globaltimer ns since the Unix epoch (too big for a double) and clock64.
  uint64_t start_ns = 0, start_cycles = 0, end_ns = 0, end_cycles = 0;
  uint32_t attempted = 0; // events the writer tried to record (end header; else records found)
  uint32_t stored = 0;    // records present in the buffer
  uint32_t dropped = 0;   // events lost to overflow
  double ghz = 0;         // cycles per ns used for the global view
  RateSource ghz_source = RateSource::default_rate;
  bool ghz_measured = false; // ghz_source == measured
  std::vector<Slice> slices;
  std::vector<Instant> instants;
  uint32_t unmatched_ends = 0;  // ENDs with no open BEGIN of their site in their lane
  uint32_t unknown_sites = 0;   // records whose site id the map does not know
  uint32_t invalid_records = 0; // non-zero head words that are not a valid record

  bool sliced() const { return slice != kNoSlice; }
  // Started, never closed, nothing recorded: a group whose writer never came (a computed lead
  // no thread matched). Not a kernel that trapped (docs/FORMAT.md, "Rows of a CTA").
  bool started_empty() const { return started && !closed && stored == 0; }
  // Started and cut off after recording: the kernel trapped or was killed.
  bool never_ended() const { return started && !closed && stored != 0; }
};

struct SliceRef {
  uint32_t row = 0;   // index into Trace::rows
  uint32_t slice = 0; // index into Row::slices
};

// An arrow from the end of `src` to the point `at` inside `dst` (both in the same CTA):
// at = max(dst begin, src end), so it is vertical (dst was already waiting when src ended) or
// forward (dst began later). Never backwards: pairs with dst end < src end are skipped.
struct Flow {
  SliceRef src, dst;
  uint64_t at_cycles = 0; // per-CTA view, inside [dst begin, dst end]
  double at_ns = 0;       // global view (ns since Trace::origin_ns), inside dst's ns span
};

// What each kind of marker adds to the time after its own clock read, in the buffer's clock
// units (cycles; ns with `clock: globaltimer`): measured on the GPU at run start by a probe kernel
// (docs/FORMAT.md, "Marker cost"). A range with nothing inside reads `range_begin`.
struct MarkerCost {
  double range_begin = 0; // a scoped range's begin
  double range_end = 0;   // a scoped range's end (where its record is stored)
  double event = 0;       // an instant, an explicit begin or end (a record stored at once)
};

struct Trace {
  std::string kernel;
  BufferHeader header;
  // Global-view origin: the earliest row start (globaltimer ns since the Unix epoch). Every
  // double *_ns of slices, instants and flows counts from it, so it keeps ns precision.
  uint64_t origin_ns = 0;
  std::vector<Row> rows; // every complete row of the buffer, in buffer order
  std::vector<Flow> flows;
  uint32_t backward_flows = 0;       // pairs skipped because dst ends before src ends
  uint32_t unpaired_flows = 0;       // src or dst slices left without a partner
  std::optional<MarkerCost> marker_cost; // what decode() subtracted inside slices, when it did
  std::vector<std::string> problems; // everything that was wrong with the input
  bool ok() const { return problems.empty(); }
};

struct DecodeOptions {
  double default_ghz = 1.755; // last resort: no measurement and no device clock in the header
  std::optional<double> ghz_override;  // forces one rate for every row
  uint64_t min_measure_span_ns = 2000; // shorter row spans give a fallback rate
  // Subtracted inside slices: each time in a row moves earlier by the cost of the markers its
  // writer ran since the row's outermost open slice began (docs/FORMAT.md, "Marker cost").
  std::optional<MarkerCost> marker_cost;
  // Runs (decode_run): take out the marker cost the run measured on each launch's GPU, unless
  // marker_cost is set here; false keeps the times as recorded (trace-view --raw-times).
  bool run_marker_cost = true;
};

// Decodes `buffer` (header + rows, as copied back from the device) with `map`.
Trace decode(const DecodeMap &map, const uint8_t *buffer, size_t size,
             const DecodeOptions &options = {});

// The marker costs the marker probe's buffer shows (cutrace/marker_probe.h; docs/FORMAT.md,
// "Marker cost"): a scoped range's begin is what an empty range reads, a stored event what one
// inside a range adds (the lowest of an instant's alone, an instant's amid an FMA chain and an
// explicit start's figure), a scoped end
// what an empty range adds to the range around it; medians, never below 0.
Expected<MarkerCost> marker_cost_from_probe(const uint8_t *buffer, size_t size);

// "marker cost B cycles per range begin, E per range end, V per event": the figures as the
// summaries print them.
std::string describe_marker_cost(const MarkerCost &cost);

// Fills trace.flows from the map's flow declarations (called by decode()): per CTA, each src
// slice pairs with the dst slice of the same payload when both ends carry payloads, else the
// i-th src with the i-th dst, in time order (docs/annotations.md, "TRACE_DAG").
void match_flows(const DecodeMap &map, Trace &trace);

} // namespace cutrace

#endif // CUTRACE_DECODE_H
