// A row's records as events with full 64-bit times, from either record layout (docs/FORMAT.md,
// "Record (8 bytes)" and "Record (16 bytes)"). Used by decode.cpp.
#ifndef CUTRACE_SRC_ANALYSIS_RECORDS_H
#define CUTRACE_SRC_ANALYSIS_RECORDS_H

#include <cutrace/map.h>

#include <cstdint>
#include <vector>

namespace cutrace::records {

enum class EventKind : uint8_t { begin, end, instant, range };

struct Event {
  EventKind kind;
  uint32_t site;
  int32_t payload;
  uint64_t ts;       // clock64 or globaltimer, per the buffer's clock kind; a range's end
  uint64_t begin_ts; // a range's begin; ts otherwise
};

// What reading a row's records found wrong.
struct RowRecords {
  std::vector<Event> events;
  uint32_t invalid = 0;    // non-zero head words that are not a valid record
  uint32_t lost_begin = 0; // ranges whose times are missing (cut by the row's capacity)
};

// The `stored` records of a row of a buffer of `version`. 8-byte records hold the low 32 bits of
// the clock: each is unwrapped against the one before, starting from `start_ts` (the row's start
// header: its clock64, or its globaltimer for a globaltimer kernel).
RowRecords read_records(const uint8_t *records, uint32_t stored, uint32_t version,
                        uint64_t start_ts);

} // namespace cutrace::records

#endif
