// Perfetto's native trace format, packet by packet (pftrace_writer.h).
#include "pftrace_writer.h"

namespace cutrace::pftrace {

namespace {

// Field numbers of Perfetto's public protos (test/perfetto/trace.proto is the subset).
namespace trace {
constexpr uint32_t packet = 1;
}
namespace packet {
constexpr uint32_t timestamp = 8, sequence_id = 10, track_event = 11, interned_data = 12,
                   sequence_flags = 13, track_descriptor = 60;
constexpr uint64_t incremental_state_cleared = 1, needs_incremental_state = 2;
} // namespace packet
namespace descriptor {
constexpr uint32_t uuid = 1, name = 2, parent_uuid = 5, child_ordering = 11,
                   sibling_order_rank = 12;
constexpr uint64_t ordering_explicit = 3;
} // namespace descriptor
namespace event {
constexpr uint32_t debug_annotations = 4, type = 9, name_iid = 10, track_uuid = 11, name = 23,
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

constexpr uint32_t kSequence = 1;        // every packet is on one sequence
constexpr size_t kChunkBytes = 1u << 20; // what the sink gets at a time

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

TraceWriter::TraceWriter(Sink sink) : sink_(std::move(sink)), args_(*this) {}

uint64_t TraceWriter::intern(Table table, std::string_view s) {
  const int t = table == event_names ? 0 : table == annotation_names ? 1 : 2;
  auto found = names_[t].find(s);
  if (found != names_[t].end())
    return found->second;
  // New: defined in the packet that first uses it.
  const uint64_t iid = next_iid_[t]++;
  names_[t].emplace(stored_.emplace_back(s), iid);
  entry_.clear();
  entry_.varint(interned::iid, iid);
  entry_.bytes(interned::text, s);
  interned_.message(table, entry_);
  return iid;
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
                        const std::vector<uint64_t> &flows_in) {
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
  for (uint64_t id : flows_out)
    body_.fixed64(event::flow_ids, id);
  for (uint64_t id : flows_in)
    body_.fixed64(event::terminating_flow_ids, id);
  body_.append(args_.all_); // the annotations are repeated fields of the TrackEvent
  args_.all_.clear();
  packet_.clear();
  packet_.varint(packet::timestamp, uint64_t(ts < 0 ? 0 : ts));
  packet_.message(packet::track_event, body_);
  packet(interned);
}

void TraceWriter::begin(uint64_t track, int64_t ts, std::string_view name, bool inline_name,
                        const std::vector<uint64_t> &flows_out,
                        const std::vector<uint64_t> &flows_in) {
  event(track, ts, event::slice_begin, name, inline_name ? 0 : intern(event_names, name), flows_out,
        flows_in);
}

void TraceWriter::begin(uint64_t track, int64_t ts, Interned name,
                        const std::vector<uint64_t> &flows_out,
                        const std::vector<uint64_t> &flows_in) {
  event(track, ts, event::slice_begin, {}, name.iid, flows_out, flows_in);
}

void TraceWriter::end(uint64_t track, int64_t ts, const std::vector<uint64_t> &flows_out,
                      const std::vector<uint64_t> &flows_in) {
  event(track, ts, event::slice_end, {}, 0, flows_out, flows_in);
}

void TraceWriter::instant(uint64_t track, int64_t ts, std::string_view name, bool inline_name) {
  event(track, ts, event::instant, name, inline_name ? 0 : intern(event_names, name), {}, {});
}

void TraceWriter::instant(uint64_t track, int64_t ts, Interned name) {
  event(track, ts, event::instant, {}, name.iid, {}, {});
}

// packet_ holds the packet's payload fields; the sequence fields and interned data are added.
void TraceWriter::packet(bool uses_interned) {
  packet_.varint(packet::sequence_id, kSequence);
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
