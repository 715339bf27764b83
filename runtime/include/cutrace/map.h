// The contract shared by generated code, the device recorder, the host runtime and the decoder:
// per-kernel decode map and the fixed sizes of the trace buffer (docs/FORMAT.md).
// Plain C++17; includable from host and device code and needs no CUDA runtime.
#ifndef CUTRACE_MAP_H
#define CUTRACE_MAP_H

#include <cstdint>

namespace cutrace {

// Which counter the records of a kernel carry as their timestamp.
enum class Clock : uint32_t { clock64 = 0, globaltimer = 1 };

// One per annotated kernel, emitted by `trace-rewrite --traced` into `<file>.trace_map.h`.
struct KernelMap {
  const char *kernel;  // kernel name as spelled
  uint32_t num_groups; // rows per CTA
  uint32_t max_events; // event capacity per row
  Clock clock;
  const char *json; // this kernel's decode map as JSON (docs/FORMAT.md, "Decode map")
};

// Opaque handle to one launch's trace buffer; kernels receive `cutrace::Slots *__cutrace_slots`.
struct Slots;

inline constexpr uint32_t kFormatVersion = 1; // decode map; buffer headers of the full layout
// Buffer header version 2 adds word 14, the layout: the device always writes the full layout;
// the host runtime stores the compact one (docs/FORMAT.md, "Compact layout").
inline constexpr uint32_t kCompactFormatVersion = 2;
enum class BufferLayout : uint32_t { full = 0, compact = 1 };
inline constexpr uint32_t kBufferMagic = 0x43525443; // "CTRC" in little-endian byte order
inline constexpr uint32_t kRowStartTag = 0x54525453; // "STRT"
inline constexpr uint32_t kRowEndTag = 0x45444E45;   // "ENDE"
inline constexpr uint32_t kBufferHeaderBytes = 64, kRowHeaderBytes = 64, kRecordBytes = 16;

// Record head word: (kind << 30) | site id. Kind 0 means "never written" (the host zeroes the
// buffer).
enum class RecordKind : uint32_t { unwritten = 0, begin = 1, end = 2, instant = 3 };
inline constexpr uint32_t kRecordKindShift = 30;
inline constexpr uint32_t kSiteMask = 0xFFFF;

constexpr uint64_t row_stride_bytes(uint32_t max_events) {
  return kRowHeaderBytes + uint64_t(max_events) * kRecordBytes;
}

} // namespace cutrace

#endif // CUTRACE_MAP_H
