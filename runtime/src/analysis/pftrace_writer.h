// Perfetto's native trace format written packet by packet (docs/viewer.md, "Perfetto"): a Trace is
// a sequence of TracePacket fields; tracks are TrackDescriptors; slices are TrackEvent
// SLICE_BEGIN / SLICE_END pairs, instants TYPE_INSTANT; event names, argument names and source
// locations are interned on one packet sequence. The compact encoding (the default) also counts
// time on an incremental clock of the sequence (each packet's timestamp is the ns since the
// previous one's; one that goes back in time gives its absolute time on the trace's clock),
// gives flow ids as varints (TrackEvent's flow_ids_old / terminating_flow_ids_old, which the
// importer reads as it reads flow_ids) and an event's source location as an interned
// SourceLocation (file and line); the plain encoding writes absolute timestamps, fixed64 flow
// ids and the location as a "loc" annotation, and is kept for the tests to compare the two
// (test/runtime_pftrace_rules_test.cpp). Bytes go to the sink in chunks of about 1 MB
// as they are made, so a trace of any length costs the memory of one chunk. Field numbers are
// those of Perfetto's public protos (trace_packet.proto, track_descriptor.proto,
// track_event.proto, debug_annotation.proto, interned_data.proto); test/perfetto/trace.proto
// declares the subset used here. Internal to cutrace_analysis.
#ifndef CUTRACE_ANALYSIS_PFTRACE_WRITER_H
#define CUTRACE_ANALYSIS_PFTRACE_WRITER_H

#include "proto_wire.h"

#include <cutrace/export.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cutrace::pftrace {

// Takes the next bytes of the trace; false when they cannot be written.
using Sink = std::function<bool(std::string_view)>;

class TraceWriter;

using Encoding = PftraceEncoding;

// An interned text's id (TraceWriter::event_name, annotation_name, annotation_string): events
// that repeat a name pass its id and skip the lookup.
struct Interned {
  uint64_t iid = 0;
};

// The debug annotations of the next event (its args in the UI), cleared after each event.
class EventArgs {
public:
  EventArgs &integer(Interned key, int64_t v);
  EventArgs &uinteger(Interned key, uint64_t v);
  EventArgs &real(Interned key, double v);
  EventArgs &boolean(Interned key, bool v);
  EventArgs &interned_text(Interned key, Interned value);

  EventArgs &integer(std::string_view key, int64_t v);
  EventArgs &uinteger(std::string_view key, uint64_t v);
  EventArgs &real(std::string_view key, double v);
  EventArgs &boolean(std::string_view key, bool v);
  EventArgs &text(std::string_view key, std::string_view v);
  // A value that repeats across events (a source location): written once, then by its id.
  EventArgs &interned_text(std::string_view key, std::string_view v);

private:
  friend class TraceWriter;
  explicit EventArgs(TraceWriter &writer) : writer_(writer) {}
  proto::ProtoMessage &start(std::string_view key);
  proto::ProtoMessage &start(Interned key);
  void finish();
  TraceWriter &writer_;
  proto::ProtoMessage one_, all_; // the annotation being built; the event's annotations
};

class TraceWriter {
public:
  explicit TraceWriter(Sink sink, Encoding encoding = Encoding::compact);
  TraceWriter(const TraceWriter &) = delete;
  TraceWriter &operator=(const TraceWriter &) = delete;

  // Describes a new track and returns its uuid. `parent` 0: a top-level track. `rank`: its
  // place among its parent's children, when the parent orders them explicitly.
  uint64_t track(std::string_view name, uint64_t parent = 0,
                 std::optional<int32_t> rank = std::nullopt, bool ordered_children = false);

  EventArgs &args() { return args_; }
  // Interns a text now (defined in the next packet written) and returns its id.
  Interned event_name(std::string_view s) { return {intern(event_names, s)}; }
  Interned annotation_name(std::string_view s) { return {intern(annotation_names, s)}; }
  Interned annotation_string(std::string_view s) { return {intern(annotation_strings, s)}; }
  // An annotation's "file:line:col", interned as the source location of the events given it.
  Interned source_location(std::string_view loc);
  // `location`: from source_location(), or none (0).
  void begin(uint64_t track, int64_t ts, Interned name, const std::vector<uint64_t> &flows_out,
             const std::vector<uint64_t> &flows_in, Interned location = {});
  void instant(uint64_t track, int64_t ts, Interned name, Interned location = {});
  // `name` is interned unless `inline_name` (names that rarely repeat, e.g. one per row).
  void begin(uint64_t track, int64_t ts, std::string_view name, bool inline_name = false,
             const std::vector<uint64_t> &flows_out = {},
             const std::vector<uint64_t> &flows_in = {});
  void end(uint64_t track, int64_t ts, const std::vector<uint64_t> &flows_out = {},
           const std::vector<uint64_t> &flows_in = {});
  void instant(uint64_t track, int64_t ts, std::string_view name, bool inline_name = false);

  // Writes what is buffered; false when the sink refused bytes (then or before).
  bool finish();
  bool failed() const { return failed_; }
  uint64_t bytes_written() const { return written_; }

private:
  friend class EventArgs;
  enum Table : uint32_t {
    event_names = 2,
    annotation_names = 3,
    source_locations = 4,
    annotation_strings = 29
  };
  static int slot(Table table);
  uint64_t intern(Table table, std::string_view s);
  // `name`: inline text, or `name_iid` when that is not 0; SLICE_END events have neither.
  void event(uint64_t track, int64_t ts, uint32_t type, std::string_view name, uint64_t name_iid,
             const std::vector<uint64_t> &flows_out, const std::vector<uint64_t> &flows_in,
             Interned location = {});
  void timestamp(int64_t ts);
  void packet(bool uses_interned);
  void start_sequence();
  void flush();

  Sink sink_;
  proto::ProtoMessage out_, packet_, body_, interned_, entry_;
  EventArgs args_;
  Encoding encoding_;
  // Per table: each text interned so far and its id (keys point into stored_).
  std::unordered_map<std::string_view, uint64_t> names_[4];
  std::deque<std::string> stored_;
  uint64_t next_iid_[4] = {1, 1, 1, 1};
  uint64_t next_uuid_ = 1;
  uint64_t clock_ = 0; // the incremental clock's time: the last timestamp given as a delta
  bool first_packet_ = true;
  bool failed_ = false;
  uint64_t written_ = 0;
};

} // namespace cutrace::pftrace

#endif // CUTRACE_ANALYSIS_PFTRACE_WRITER_H
