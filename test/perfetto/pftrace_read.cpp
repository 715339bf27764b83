// Reading a Perfetto protobuf trace back, for the tests (pftrace_read.h).
#include "pftrace_read.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <string_view>

namespace pftrace_read {

namespace {

// One field of a message: its number, wire type and value (varint / fixed64 bits, or bytes).
struct Field {
  uint32_t number = 0, wire = 0;
  uint64_t value = 0;
  std::string_view bytes;
};

class Fields {
public:
  explicit Fields(std::string_view data) : data_(data) {}
  // The next field; false at the end, or when the bytes are not a message (bad set).
  bool next(Field &f) {
    if (pos_ >= data_.size() || bad_)
      return false;
    uint64_t tag;
    if (!varint(tag))
      return fail();
    f.number = uint32_t(tag >> 3);
    f.wire = uint32_t(tag & 7);
    switch (f.wire) {
    case 0:
      return varint(f.value) || fail();
    case 1:
      if (data_.size() - pos_ < 8)
        return fail();
      f.value = 0;
      for (int i = 0; i < 8; ++i)
        f.value |= uint64_t(uint8_t(data_[pos_ + i])) << (8 * i);
      pos_ += 8;
      return true;
    case 2: {
      uint64_t n;
      if (!varint(n) || n > data_.size() - pos_)
        return fail();
      f.bytes = data_.substr(pos_, n);
      pos_ += n;
      return true;
    }
    case 5:
      if (data_.size() - pos_ < 4)
        return fail();
      pos_ += 4;
      return true;
    default:
      return fail();
    }
  }
  bool bad() const { return bad_; }

private:
  bool varint(uint64_t &v) {
    v = 0;
    for (int shift = 0; shift < 64 && pos_ < data_.size(); shift += 7) {
      const uint8_t b = uint8_t(data_[pos_++]);
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80))
        return true;
    }
    return false;
  }
  bool fail() {
    bad_ = true;
    return false;
  }
  std::string_view data_;
  size_t pos_ = 0;
  bool bad_ = false;
};

constexpr uint64_t kBoottime = 6; // the trace's clock

struct Reader {
  Trace out;
  std::map<uint64_t, std::string> tables[3]; // event names, annotation names, annotation strings
  std::map<uint64_t, std::pair<std::string, uint64_t>> locations; // SourceLocation: file, line
  uint64_t default_clock = 0;                                      // TracePacketDefaults
  // Sequence-scoped clocks a snapshot defined: their time, and the trace's clock then minus it.
  struct Clock {
    uint64_t now = 0;
    int64_t offset = 0;
    bool incremental = false;
  };
  std::map<uint64_t, Clock> clocks;
  std::set<uint64_t> described;
  size_t packet = 0;
  bool uses_interned = false;

  void problem(const std::string &what) {
    out.problems.push_back("packet " + std::to_string(packet) + ": " + what);
  }

  void interned(std::string_view data) {
    Fields fs(data);
    Field f;
    while (fs.next(f)) {
      if (f.number == 4 && f.wire == 2) {
        source_location(f.bytes);
        continue;
      }
      const int t = f.number == 2 ? 0 : f.number == 3 ? 1 : f.number == 29 ? 2 : -1;
      if (t < 0 || f.wire != 2) {
        problem("interned_data field " + std::to_string(f.number) + " unknown");
        continue;
      }
      uint64_t iid = 0;
      std::string text;
      Fields entry(f.bytes);
      Field e;
      while (entry.next(e))
        if (e.number == 1)
          iid = e.value;
        else if (e.number == 2)
          text = std::string(e.bytes);
      if (iid == 0)
        problem("interned entry without an iid");
      else if (!tables[t].emplace(iid, text).second)
        problem("interned iid " + std::to_string(iid) + " defined twice");
    }
  }

  void source_location(std::string_view data) {
    uint64_t iid = 0, line = 0;
    std::string file;
    Fields fs(data);
    Field f;
    while (fs.next(f))
      if (f.number == 1)
        iid = f.value;
      else if (f.number == 2)
        file = std::string(f.bytes);
      else if (f.number == 4)
        line = f.value;
      else
        problem("source location field " + std::to_string(f.number) + " unknown");
    if (iid == 0)
      problem("source location without an iid");
    else if (!locations.emplace(iid, std::make_pair(file, line)).second)
      problem("source location iid " + std::to_string(iid) + " defined twice");
  }

  void clock_snapshot(std::string_view data) {
    std::map<uint64_t, std::pair<uint64_t, bool>> read; // id: timestamp, incremental
    Fields fs(data);
    Field f;
    while (fs.next(f)) {
      if (f.number != 1 || f.wire != 2) {
        problem("clock snapshot field " + std::to_string(f.number) + " unknown");
        continue;
      }
      uint64_t id = 0, ts = 0;
      bool incremental = false;
      Fields clock(f.bytes);
      Field c;
      while (clock.next(c))
        if (c.number == 1)
          id = c.value;
        else if (c.number == 2)
          ts = c.value;
        else if (c.number == 3)
          incremental = c.value != 0;
        else
          problem("clock field " + std::to_string(c.number) + " unknown");
      read[id] = {ts, incremental};
    }
    if (!read.count(kBoottime)) {
      problem("a clock snapshot without the trace's clock (BOOTTIME)");
      return;
    }
    for (const auto &[id, clock] : read)
      if (id != kBoottime)
        clocks[id] = {clock.first, int64_t(read[kBoottime].first) - int64_t(clock.first),
                      clock.second};
  }

  // The packet's timestamp on the trace's clock.
  uint64_t trace_time(uint64_t ts, std::optional<uint64_t> clock_id) {
    const uint64_t id = clock_id.value_or(default_clock);
    if (id == 0 || id == kBoottime) {
      ++out.absolute_timestamps;
      return ts;
    }
    auto c = clocks.find(id);
    if (c == clocks.end()) {
      problem("timestamp on clock " + std::to_string(id) + " before a snapshot defines it");
      return ts;
    }
    ++out.incremental_timestamps;
    uint64_t &now = c->second.now;
    now = c->second.incremental ? now + ts : ts;
    return uint64_t(int64_t(now) + c->second.offset);
  }

  std::string lookup(int t, uint64_t iid, const char *what) {
    uses_interned = true;
    auto it = tables[t].find(iid);
    if (it == tables[t].end()) {
      problem(std::string(what) + " iid " + std::to_string(iid) + " used before it is defined");
      return "?";
    }
    return it->second;
  }

  void annotation(std::string_view data, Event &e) {
    Fields fs(data);
    Field f;
    std::string name;
    std::optional<Value> value;
    while (fs.next(f)) {
      switch (f.number) {
      case 1:
        name = lookup(1, f.value, "annotation name");
        break;
      case 10:
        name = std::string(f.bytes);
        break;
      case 2:
        value = f.value != 0;
        break;
      case 3:
        value = f.value;
        break;
      case 4:
        value = int64_t(f.value);
        break;
      case 5: {
        double d;
        std::memcpy(&d, &f.value, sizeof d);
        value = d;
        break;
      }
      case 6:
        value = std::string(f.bytes);
        break;
      case 17:
        value = lookup(2, f.value, "annotation string");
        break;
      default:
        problem("debug annotation field " + std::to_string(f.number) + " unknown");
      }
    }
    if (!value)
      problem("debug annotation '" + name + "' without a value");
    else
      e.args[name] = *value;
  }

  void flows(const Field &f, std::vector<uint64_t> &ids) {
    if (f.wire == 0) { // flow_ids_old / terminating_flow_ids_old: varints
      ids.push_back(f.value);
      return;
    }
    if (f.wire == 1) {
      ids.push_back(f.value);
      return;
    }
    for (size_t i = 0; i + 8 <= f.bytes.size(); i += 8) { // packed
      uint64_t v = 0;
      for (int b = 0; b < 8; ++b)
        v |= uint64_t(uint8_t(f.bytes[i + b])) << (8 * b);
      ids.push_back(v);
    }
  }

  void track_event(std::string_view data, std::optional<uint64_t> ts) {
    Event e;
    e.packet = packet;
    if (!ts)
      problem("track event without a timestamp");
    e.ts = ts.value_or(0);
    Fields fs(data);
    Field f;
    while (fs.next(f)) {
      switch (f.number) {
      case 4:
        annotation(f.bytes, e);
        break;
      case 9:
        e.type = Type(f.value);
        break;
      case 10:
        e.name = lookup(0, f.value, "event name");
        break;
      case 11:
        e.track = f.value;
        break;
      case 23:
        e.name = std::string(f.bytes);
        break;
      case 34: {
        uses_interned = true;
        auto it = locations.find(f.value);
        if (it == locations.end()) {
          problem("source location iid " + std::to_string(f.value) + " used before it is defined");
        } else {
          e.source_file = it->second.first;
          e.source_line = it->second.second;
        }
        break;
      }
      case 36:
      case 47:
        flows(f, e.flows_out);
        break;
      case 42:
      case 48:
        flows(f, e.flows_in);
        break;
      default:
        problem("track event field " + std::to_string(f.number) + " unknown");
      }
    }
    if (fs.bad())
      problem("a track event that is not a message");
    if (!described.count(e.track))
      problem("track " + std::to_string(e.track) + " used before it is described");
    out.events.push_back(std::move(e));
  }

  void track_descriptor(std::string_view data) {
    Track t;
    t.packet = packet;
    Fields fs(data);
    Field f;
    while (fs.next(f)) {
      switch (f.number) {
      case 1:
        t.uuid = f.value;
        break;
      case 2:
        t.name = std::string(f.bytes);
        break;
      case 5:
        t.parent = f.value;
        break;
      case 11:
        t.ordered_children = f.value == 3;
        break;
      case 12:
        t.rank = int64_t(int32_t(uint32_t(f.value)));
        break;
      default:
        problem("track descriptor field " + std::to_string(f.number) + " unknown");
      }
    }
    if (t.uuid == 0)
      problem("track descriptor without a uuid");
    if (t.parent && !described.count(t.parent))
      problem("track '" + t.name + "' has a parent not described before it");
    if (!described.insert(t.uuid).second)
      problem("track uuid " + std::to_string(t.uuid) + " described twice");
    out.tracks.push_back(std::move(t));
  }

  void read_packet(std::string_view data) {
    Fields fs(data);
    Field f;
    std::optional<uint64_t> ts, seq, flags, clock_id;
    std::vector<std::string_view> events, descriptors, interned_data, snapshots, defaults;
    while (fs.next(f)) {
      switch (f.number) {
      case 6:
        snapshots.push_back(f.bytes);
        break;
      case 8:
        ts = f.value;
        break;
      case 58:
        clock_id = f.value;
        break;
      case 59:
        defaults.push_back(f.bytes);
        break;
      case 10:
        seq = f.value;
        break;
      case 11:
        events.push_back(f.bytes);
        break;
      case 12:
        interned_data.push_back(f.bytes);
        break;
      case 13:
        flags = f.value;
        break;
      case 60:
        descriptors.push_back(f.bytes);
        break;
      default:
        problem("packet field " + std::to_string(f.number) + " unknown");
      }
    }
    if (fs.bad())
      problem("a packet that is not a message");
    if (!seq)
      ++out.packets_without_sequence;
    else if (*seq != 1)
      ++out.packets_on_other_sequences;
    if (packet == 0)
      out.first_packet_clears_state = flags && (*flags & 1);
    if (flags && (*flags & 1)) // the incremental state cleared: the defaults with it
      default_clock = 0;
    for (std::string_view d : defaults) { // before the timestamp, as the importer reads them
      Fields df(d);
      Field g;
      while (df.next(g))
        if (g.number == 58)
          default_clock = g.value;
        else
          problem("trace packet defaults field " + std::to_string(g.number) + " unknown");
    }
    for (std::string_view d : snapshots)
      clock_snapshot(d);
    if (ts)
      ts = trace_time(*ts, clock_id);
    for (std::string_view d : interned_data)
      interned(d);
    uses_interned = !interned_data.empty();
    for (std::string_view d : descriptors)
      track_descriptor(d);
    for (std::string_view e : events)
      track_event(e, ts);
    if (uses_interned && packet > 0 && !(flags && (*flags & 2)))
      ++out.interned_uses_without_flag;
  }
};

} // namespace

Trace read(const std::string &bytes) {
  Reader r;
  Fields fs(bytes);
  Field f;
  while (fs.next(f)) {
    if (f.number != 1 || f.wire != 2) {
      r.problem("trace field " + std::to_string(f.number) + " is not a packet");
      continue;
    }
    r.read_packet(f.bytes);
    ++r.packet;
  }
  if (fs.bad())
    r.problem("the file is not a protobuf Trace");
  r.out.packets = r.packet;
  return std::move(r.out);
}

std::vector<const Event *> import_order(const Trace &trace) {
  std::vector<const Event *> order;
  for (const Event &e : trace.events)
    order.push_back(&e);
  std::stable_sort(order.begin(), order.end(),
                   [](const Event *a, const Event *b) { return a->ts < b->ts; });
  return order;
}

} // namespace pftrace_read
