// Perfetto's native trace format, packet by packet (pftrace_writer.h).
#include "pftrace_writer.h"

namespace cutrace::pftrace {

namespace {

// Field numbers of Perfetto's public protos (test/perfetto/trace.proto is the subset).
namespace trace {
constexpr uint32_t packet = 1;
}
namespace packet {
constexpr uint32_t clock_snapshot = 6, timestamp = 8, sequence_id = 10, track_event = 11,
                   interned_data = 12, sequence_flags = 13, timestamp_clock_id = 58,
                   defaults = 59, track_descriptor = 60;
constexpr uint64_t incremental_state_cleared = 1, needs_incremental_state = 2;
} // namespace packet
namespace defaults { // TracePacketDefaults
constexpr uint32_t timestamp_clock_id = 58;
}
namespace clocks { // ClockSnapshot and its Clock
constexpr uint32_t clock = 1, id = 1, timestamp = 2, is_incremental = 3;
// BOOTTIME: the trace's own clock; 64: the first id scoped to a packet sequence.
constexpr uint64_t boottime = 6, incremental = 64;
} // namespace clocks
namespace descriptor {
constexpr uint32_t uuid = 1, name = 2, parent_uuid = 5, child_ordering = 11,
                   sibling_order_rank = 12;
constexpr uint64_t ordering_explicit = 3;
} // namespace descriptor
namespace event {
constexpr uint32_t debug_annotations = 4, type = 9, name_iid = 10, track_uuid = 11, name = 23,
                   source_location_iid = 34, flow_ids_varint = 36, terminating_flow_ids_varint = 42,
                   flow_ids = 47, terminating_flow_ids = 48;
constexpr uint32_t slice_begin = 1, slice_end = 2, instant = 3;
} // namespace event
namespace annotation {
constexpr uint32_t name_iid = 1, bool_value = 2, uint_value = 3, int_value = 4, double_value = 5,
                   string_value = 6, string_value_iid = 17;
}
namespace interned { // EventName, DebugAnnotationName and InternedString: iid 1, the text 2
constexpr uint32_t iid = 1, text = 2;
}
namespace location { // SourceLocation
constexpr uint32_t iid = 1, file_name = 2, line_number = 4;
}

constexpr uint32_t kSequence = 1;        // every packet is on one sequence
constexpr size_t kChunkBytes = 1u << 20; // what the sink gets at a time

// "file:line:col" (or "file:line") as file and line; a text without them is all file, line 0.
std::pair<std::string_view, uint64_t> file_and_line(std::string_view loc) {
  auto number = [](std::string_view s, uint64_t &v) {
    if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string_view::npos)
      return false;
    v = 0;
    for (char c : s)
      v = v * 10 + uint64_t(c - '0');
    return true;
  };
  const size_t last = loc.rfind(':');
  uint64_t a = 0, b = 0;
  if (last == std::string_view::npos || last == 0 || !number(loc.substr(last + 1), b))
    return {loc, 0};
  const size_t before = loc.rfind(':', last - 1);
  if (before != std::string_view::npos && before > 0 &&
      number(loc.substr(before + 1, last - before - 1), a))
    return {loc.substr(0, before), a}; // the column is dropped: SourceLocation has none
  return {loc.substr(0, last), b};
}

} // namespace

proto::ProtoMessage &EventArgs::start(std::string_view key) {
  one_.clear();
  one_.varint(annotation::name_iid, writer_.intern(TraceWriter::annotation_names, key));
  return one_;
}

proto::ProtoMessage &EventArgs::start(Interned key) {
  one_.clear();
  one_.varint(annotation::name_iid, key.iid);
  return one_;
}

void EventArgs::finish() { all_.message(event::debug_annotations, one_); }

EventArgs &EventArgs::integer(Interned key, int64_t v) {
  start(key).signed_varint(annotation::int_value, v);
  finish();
  return *this;
}

EventArgs &EventArgs::uinteger(Interned key, uint64_t v) {
  start(key).varint(annotation::uint_value, v);
  finish();
  return *this;
}

EventArgs &EventArgs::real(Interned key, double v) {
  start(key).real(annotation::double_value, v);
  finish();
  return *this;
}

EventArgs &EventArgs::boolean(Interned key, bool v) {
  start(key).boolean(annotation::bool_value, v);
  finish();
  return *this;
}

EventArgs &EventArgs::interned_text(Interned key, Interned value) {
  start(key).varint(annotation::string_value_iid, value.iid);
  finish();
  return *this;
}

EventArgs &EventArgs::integer(std::string_view key, int64_t v) {
  start(key).signed_varint(annotation::int_value, v);
  finish();
  return *this;
}

EventArgs &EventArgs::uinteger(std::string_view key, uint64_t v) {
  start(key).varint(annotation::uint_value, v);
  finish();
  return *this;
}

EventArgs &EventArgs::real(std::string_view key, double v) {
  start(key).real(annotation::double_value, v);
  finish();
  return *this;
}

EventArgs &EventArgs::boolean(std::string_view key, bool v) {
  start(key).boolean(annotation::bool_value, v);
  finish();
  return *this;
}

EventArgs &EventArgs::text(std::string_view key, std::string_view v) {
  start(key).bytes(annotation::string_value, v);
  finish();
  return *this;
}

EventArgs &EventArgs::interned_text(std::string_view key, std::string_view v) {
  const uint64_t iid = writer_.intern(TraceWriter::annotation_strings, v);
  start(key).varint(annotation::string_value_iid, iid);
  finish();
  return *this;
}

TraceWriter::TraceWriter(Sink sink, Encoding encoding)
    : sink_(std::move(sink)), args_(*this), encoding_(encoding) {}

// The index of a table's texts in names_ and next_iid_.
int TraceWriter::slot(Table table) {
  switch (table) {
  case event_names:
    return 0;
  case annotation_names:
    return 1;
  case annotation_strings:
    return 2;
  case source_locations:
    return 3;
  }
  return 3;
}

uint64_t TraceWriter::intern(Table table, std::string_view s) {
  const int t = slot(table);
  auto found = names_[t].find(s);
  if (found != names_[t].end())
    return found->second;
  // New: defined in the packet that first uses it.
  const uint64_t iid = next_iid_[t]++;
  names_[t].emplace(stored_.emplace_back(s), iid);
  entry_.clear();
  entry_.varint(interned::iid, iid);
  if (table == source_locations) {
    const auto [file, line] = file_and_line(s);
    entry_.bytes(location::file_name, file);
    if (line)
      entry_.varint(location::line_number, line);
  } else {
    entry_.bytes(interned::text, s);
  }
  interned_.message(table, entry_);
  return iid;
}

Interned TraceWriter::source_location(std::string_view loc) {
  // The plain encoding gives it as an annotation string (see event()).
  return {intern(encoding_ == Encoding::compact ? source_locations : annotation_strings, loc)};
}

uint64_t TraceWriter::track(std::string_view name, uint64_t parent, std::optional<int32_t> rank,
                            bool ordered_children) {
  const uint64_t uuid = next_uuid_++;
  body_.clear();
  body_.varint(descriptor::uuid, uuid);
  body_.bytes(descriptor::name, name);
  if (parent)
    body_.varint(descriptor::parent_uuid, parent);
  if (ordered_children)
    body_.varint(descriptor::child_ordering, descriptor::ordering_explicit);
  if (rank)
    body_.signed_varint(descriptor::sibling_order_rank, *rank);
  packet_.clear();
  packet_.message(packet::track_descriptor, body_);
  packet(false);
  return uuid;
}

void TraceWriter::event(uint64_t track, int64_t ts, uint32_t type, std::string_view name,
                        uint64_t name_iid, const std::vector<uint64_t> &flows_out,
                        const std::vector<uint64_t> &flows_in, Interned location) {
  const bool compact = encoding_ == Encoding::compact;
  if (location.iid && !compact)
    args_.interned_text(annotation_name("loc"), location);
  body_.clear();
  body_.varint(event::type, type);
  body_.varint(event::track_uuid, track);
  bool interned = !args_.all_.empty(); // annotation names are interned
  if (name_iid) {
    body_.varint(event::name_iid, name_iid);
    interned = true;
  } else if (type != event::slice_end) {
    body_.bytes(event::name, name);
  }
  if (location.iid && compact) {
    body_.varint(event::source_location_iid, location.iid);
    interned = true;
  }
  // Flow ids are small numbers: as varints 1-3 bytes instead of fixed64's 8.
  for (uint64_t id : flows_out)
    compact ? body_.varint(event::flow_ids_varint, id) : body_.fixed64(event::flow_ids, id);
  for (uint64_t id : flows_in)
    compact ? body_.varint(event::terminating_flow_ids_varint, id)
            : body_.fixed64(event::terminating_flow_ids, id);
  body_.append(args_.all_); // the annotations are repeated fields of the TrackEvent
  args_.all_.clear();
  packet_.clear();
  timestamp(ts < 0 ? 0 : ts);
  packet_.message(packet::track_event, body_);
  packet(interned);
}

// On the incremental clock, the ns since the previous timestamp: 1-2 bytes instead of the 4-5
// of a time since the run's start. The events of a launch come in time order, but a run's
// launches overlap: an event before the clock's time gives its absolute time on the trace's
// clock, and leaves the incremental clock where it was.
void TraceWriter::timestamp(int64_t ts) {
  const uint64_t t = uint64_t(ts);
  if (encoding_ == Encoding::plain) {
    packet_.varint(packet::timestamp, t);
  } else if (t >= clock_) {
    packet_.varint(packet::timestamp, t - clock_);
    clock_ = t;
  } else {
    packet_.varint(packet::timestamp, t);
    packet_.varint(packet::timestamp_clock_id, clocks::boottime);
  }
}

void TraceWriter::begin(uint64_t track, int64_t ts, std::string_view name, bool inline_name,
                        const std::vector<uint64_t> &flows_out,
                        const std::vector<uint64_t> &flows_in) {
  event(track, ts, event::slice_begin, name, inline_name ? 0 : intern(event_names, name), flows_out,
        flows_in);
}

void TraceWriter::begin(uint64_t track, int64_t ts, Interned name,
                        const std::vector<uint64_t> &flows_out,
                        const std::vector<uint64_t> &flows_in, Interned location) {
  event(track, ts, event::slice_begin, {}, name.iid, flows_out, flows_in, location);
}

void TraceWriter::end(uint64_t track, int64_t ts, const std::vector<uint64_t> &flows_out,
                      const std::vector<uint64_t> &flows_in) {
  event(track, ts, event::slice_end, {}, 0, flows_out, flows_in);
}

void TraceWriter::instant(uint64_t track, int64_t ts, std::string_view name, bool inline_name) {
  event(track, ts, event::instant, name, inline_name ? 0 : intern(event_names, name), {}, {});
}

void TraceWriter::instant(uint64_t track, int64_t ts, Interned name, Interned location) {
  event(track, ts, event::instant, {}, name.iid, {}, {}, location);
}

// The compact encoding's first packet: it clears the sequence's state, makes the incremental
// clock (64) the default of every later packet and sets it and the trace's clock to 0.
void TraceWriter::start_sequence() {
  proto::ProtoMessage clock, snapshot, packet_defaults, start;
  clock.varint(clocks::id, clocks::incremental);
  clock.varint(clocks::timestamp, 0);
  clock.boolean(clocks::is_incremental, true);
  snapshot.message(clocks::clock, clock);
  clock.clear();
  clock.varint(clocks::id, clocks::boottime);
  clock.varint(clocks::timestamp, 0);
  snapshot.message(clocks::clock, clock);
  packet_defaults.varint(defaults::timestamp_clock_id, clocks::incremental);
  start.message(packet::clock_snapshot, snapshot);
  start.varint(packet::sequence_id, kSequence);
  start.varint(packet::sequence_flags, packet::incremental_state_cleared);
  start.message(packet::defaults, packet_defaults);
  out_.message(trace::packet, start);
}

// packet_ holds the packet's payload fields; the sequence fields and interned data are added.
void TraceWriter::packet(bool uses_interned) {
  packet_.varint(packet::sequence_id, kSequence);
  if (first_packet_ && encoding_ == Encoding::compact) {
    start_sequence();
    first_packet_ = false;
  }
  if (first_packet_) {
    packet_.varint(packet::sequence_flags, packet::incremental_state_cleared);
    first_packet_ = false;
  } else if (uses_interned || !interned_.empty()) {
    packet_.varint(packet::sequence_flags, packet::needs_incremental_state);
  }
  if (!interned_.empty()) {
    packet_.message(packet::interned_data, interned_);
    interned_.clear();
  }
  out_.message(trace::packet, packet_);
  if (out_.bytes().size() >= kChunkBytes)
    flush();
}

void TraceWriter::flush() {
  if (out_.empty())
    return;
  if (!failed_ && !sink_(out_.bytes()))
    failed_ = true;
  written_ += out_.bytes().size();
  out_.clear();
}

bool TraceWriter::finish() {
  flush();
  return !failed_;
}

} // namespace cutrace::pftrace
