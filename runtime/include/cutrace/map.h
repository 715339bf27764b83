// The contract shared by generated code, the device recorder, the host runtime and the decoder:
// per-kernel decode map and the fixed sizes of the trace buffer (docs/FORMAT.md).
// Plain C++17; includable from host and device code and needs no CUDA runtime.
#ifndef CUTRACE_MAP_H
#define CUTRACE_MAP_H

#include <cstdint>

// The row arithmetic below runs on the host (buffer sizes) and on the device (row addresses).
#if defined(__CUDACC__) || defined(__CUDA__)
#define CUTRACE_MAP_HD_ __host__ __device__
#else
#define CUTRACE_MAP_HD_
#endif

namespace cutrace {

// Which counter the records of a kernel carry as their timestamp.
enum class Clock : uint32_t { clock64 = 0, globaltimer = 1 };

// A `TRACE_GROUPS(name, size, first)` group: one row per slice of `slice_threads` threads of the
// CTA from linear thread `first_thread` on, so its row count follows from the block size.
struct SliceGroup {
  uint32_t group;         // the group's index in the decode map
  uint32_t slice_threads; // a multiple of 32
  uint32_t first_thread;  // a multiple of 32
};

// How many slices of `size` threads from thread `first` on a CTA of `threads` threads has; a last,
// partial slice counts (its first thread exists and writes).
CUTRACE_MAP_HD_ constexpr uint32_t slices_in(uint32_t threads, uint32_t size, uint32_t first) {
  return threads > first ? (threads - first + size - 1) / size : 0;
}

// The largest row capacity, in 8-byte slots: a traced kernel's cursor counts up to it
// (cutrace/device.h).
inline constexpr uint32_t kMaxRowCapacity = 1u << 30;

} // namespace cutrace

// Whether the traced kernels of a translation unit take each launch's row capacity from the
// buffer header (docs/FORMAT.md, "Row capacity"): with the default stores, yes; with the
// measurement switches that store otherwise (CUTRACE_COMPACT=0 or 1, the staged recorder, a
// recorder probe) the rows hold the map's max_events. Decided by the flags the unit is compiled
// with, which its decode maps carry to the host (KernelMap::rows_sized_at_launch).
#if defined(CUTRACE_COMPACT)
#define CUTRACE_DETAIL_ROWS_SIZED_AT_LAUNCH (CUTRACE_COMPACT == 2)
#elif (defined(CUTRACE_STAGING_SLOTS) && CUTRACE_STAGING_SLOTS > 0) ||                             \
    (defined(CUTRACE_RECORDER_PROBE) && CUTRACE_RECORDER_PROBE != 0)
#define CUTRACE_DETAIL_ROWS_SIZED_AT_LAUNCH 0
#else
#define CUTRACE_DETAIL_ROWS_SIZED_AT_LAUNCH 1
#endif

namespace cutrace {

// One per annotated kernel, emitted by `trace-rewrite --traced` into `<file>.trace_map.h`.
struct KernelMap {
  const char *kernel;  // kernel name as spelled
  uint32_t num_groups; // groups in the decode map; rows per CTA when no group is sliced
  uint32_t max_events; // event capacity per row
  Clock clock;
  const char *json; // this kernel's decode map as JSON (docs/FORMAT.md, "Decode map")
  const SliceGroup *slice_groups = nullptr; // the TRACE_GROUPS groups, by increasing index
  uint32_t num_slice_groups = 0;
  // Whether the host picks each launch's row capacity (at least max_events) or rows hold exactly
  // max_events: from the flags of the unit that holds this map (see above).
  bool rows_sized_at_launch = CUTRACE_DETAIL_ROWS_SIZED_AT_LAUNCH;
};

// Rows per CTA of a launch with `block_threads` threads per CTA: one per TRACE_GROUP group, one
// per slice of each TRACE_GROUPS group. Rows are ordered by group index, a sliced group's rows
// by slice (docs/FORMAT.md, "Rows of a CTA").
CUTRACE_MAP_HD_ constexpr uint32_t rows_per_cta(const KernelMap &map, uint32_t block_threads) {
  uint32_t rows = map.num_groups - map.num_slice_groups;
  for (uint32_t i = 0; i < map.num_slice_groups; ++i)
    rows += slices_in(block_threads, map.slice_groups[i].slice_threads,
                      map.slice_groups[i].first_thread);
  return rows;
}

// Opaque handle to one launch's trace buffer; kernels receive `cutrace::Slots *__cutrace_slots`.
struct Slots;

inline constexpr uint32_t kFormatVersion = 1; // decode map; buffer headers of the full layout
// Buffer header version 2 adds word 14, the layout: the device always writes the full layout;
// the host runtime stores the compact one (docs/FORMAT.md, "Compact layout").
inline constexpr uint32_t kCompactFormatVersion = 2;
// Buffer header version 3: 8-byte records (docs/FORMAT.md, "Record (8 bytes)"), word 14 as in
// version 2. What cutrace/device.h writes; versions 1 and 2 hold 16-byte records.
inline constexpr uint32_t kRecordFormatVersion = 3;
enum class BufferLayout : uint32_t { full = 0, compact = 1 };
// Buffer header word 15 as the device reads it at a group's start: bit 0 set (by the host, in
// the mapped mode) asks for every record stored straight to the buffer, none staged in shared
// memory. What the host reads back has bit 0 clear.
inline constexpr uint32_t kDirectStoresFlag = 1;
// Buffer header word 15, bit 1 (the host's, kept in what it reads back; the device ignores it):
// the row capacity was chosen by the host at launch (docs/guide.md, "Row capacity"), not fixed
// by the build's --max-events, so a row that overflowed is fixed by the host's budgets.
inline constexpr uint32_t kRowsSizedAtLaunchFlag = 2;
// Buffer header word 15, bits 16-31: the launch's CTA stride k (docs/FORMAT.md, "Buffer
// header"; 0 means 1). With k > 1 only the CTAs whose linear index is a multiple of k record,
// each whole, and the buffer holds their rows only: the host's rule when the pool cannot hold
// every row at the size the kernel needs (docs/guide.md, "Row capacity").
inline constexpr uint32_t kCtaStrideShift = 16;
inline constexpr uint32_t kMaxCtaStride = 0xFFFF;
inline constexpr uint32_t kBufferMagic = 0x43525443; // "CTRC" in little-endian byte order
inline constexpr uint32_t kRowStartTag = 0x54525453; // "STRT"
inline constexpr uint32_t kRowEndTag = 0x45444E45;   // "ENDE"
inline constexpr uint32_t kBufferHeaderBytes = 64, kRowHeaderBytes = 64;
// A record slot of version 3 (what the device writes) and of versions 1 and 2.
inline constexpr uint32_t kRecordBytes = 8, kLegacyRecordBytes = 16;

CUTRACE_MAP_HD_ constexpr uint32_t record_bytes(uint32_t version) {
  return version >= kRecordFormatVersion ? kRecordBytes : kLegacyRecordBytes;
}

// Version 3 record head word (docs/FORMAT.md, "Record (8 bytes)"). Bit 31 set: a RANGE, a
// scoped range of one thread written where it ends. Bit 30 set: the wide RANGE (16 bytes): the
// second word its payload, the next slot its begin and end times (the low 32 bits of each).
// Bit 30 clear: the narrow RANGE (8 bytes): bits 29..16 its length in clock ticks (kRangeLong:
// 2^14 - 1 or more, its begin time follows in an EXT record), the second word its end time.
// Bit 31 clear: bits 30..28 a RecordKind, 27..16 zero. Bits 15..0: the site id.
// A head word of 0 is a slot never written (the host zeroes the buffer).
inline constexpr uint32_t kRangeBit = 1u << 31;
inline constexpr uint32_t kWideRange = 1u << 30;
inline constexpr uint32_t kRangeLengthShift = 16;
inline constexpr uint32_t kRangeLong = 0x3FFF;
inline constexpr uint32_t kKindShift = 28;

// Record kinds. Versions 1 and 2: head = (kind << 30) | site, kinds 1-3 only, 0 = never written.
// Version 3 (bit 31 clear): kind << 28; `payload` and `ext` complete the record before them.
enum class RecordKind : uint32_t {
  unwritten = 0,
  begin = 1,
  end = 2,
  instant = 3,
  payload = 4, // version 3: the int32 payload of the BEGIN, INSTANT or RANGE before it
  ext = 5,     // version 3: the begin time of the long narrow RANGE before it
};
inline constexpr uint32_t kRecordKindShift = 30; // versions 1 and 2
inline constexpr uint32_t kSiteMask = 0xFFFF;

// Row stride of a buffer of `version`: version 3 rounds the record area up to 16 bytes, so
// every row header stays 16-byte aligned for the device's 16-byte header stores.
CUTRACE_MAP_HD_ constexpr uint64_t row_stride_bytes(uint32_t max_events,
                                                    uint32_t version = kRecordFormatVersion) {
  return version >= kRecordFormatVersion
             ? kRowHeaderBytes + (uint64_t(max_events) + (max_events & 1u)) * kRecordBytes
             : kRowHeaderBytes + uint64_t(max_events) * kLegacyRecordBytes;
}

} // namespace cutrace

#endif // CUTRACE_MAP_H
