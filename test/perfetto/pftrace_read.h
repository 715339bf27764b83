// Reads a Perfetto protobuf trace back the way the importer sees it, for the tests
// (runtime_pftrace_rules_test.cpp, pftrace_to_json.cpp): a protobuf wire decoder of its own (it
// shares no code with the writer) and the packets, track descriptors, track events and interned
// data of test/perfetto/trace.proto, with interned ids resolved in file order as the importer
// resolves them, and timestamps put on the trace's clock as the importer puts them: a packet on
// the sequence's incremental clock (its own timestamp_clock_id, else its sequence's
// TracePacketDefaults) adds its timestamp to that clock's time, which a ClockSnapshot set. Anything it cannot read is a problem, listed, never an exception.
#ifndef CUTRACE_TEST_PFTRACE_READ_H
#define CUTRACE_TEST_PFTRACE_READ_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace pftrace_read {

using Value = std::variant<bool, uint64_t, int64_t, double, std::string>;

struct Track {
  uint64_t uuid = 0, parent = 0;
  std::string name;
  std::optional<int64_t> rank;
  bool ordered_children = false;
  size_t packet = 0; // index of the packet that described it
};

enum class Type { unspecified = 0, begin = 1, end = 2, instant = 3 };

struct Event {
  size_t packet = 0; // file order
  uint64_t ts = 0;
  Type type = Type::unspecified;
  uint64_t track = 0;
  std::string name;                  // resolved from name_iid or the inline name
  std::map<std::string, Value> args; // debug annotations, names and interned strings resolved
  std::vector<uint64_t> flows_out, flows_in;
  std::string source_file;  // its interned SourceLocation, if any
  uint64_t source_line = 0; // 0: none given
};

struct Trace {
  std::vector<Track> tracks;         // in file order
  std::vector<Event> events;         // in file order
  std::vector<std::string> problems; // rule violations found while reading (ids used undefined...)
  size_t packets = 0;
  size_t packets_without_sequence = 0, packets_on_other_sequences = 0;
  bool first_packet_clears_state = false;
  size_t interned_uses_without_flag = 0; // packets using interned ids without NEEDS_INCREMENTAL
  size_t incremental_timestamps = 0, absolute_timestamps = 0; // packets with a timestamp, by kind
};

Trace read(const std::string &bytes);

// The events in the order the importer processes them: by timestamp, ties in file order.
std::vector<const Event *> import_order(const Trace &trace);

} // namespace pftrace_read

#endif
