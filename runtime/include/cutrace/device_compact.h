// How cutrace/device.h (Group) stores records, by default (CUTRACE_COMPACT=2; 1 and 0 are
// measurement switches, docs/recorder-designs.md, "Fewer instructions per record"). The
// records are those of format version 3 (docs/FORMAT.md, "Record (8 bytes)"), the same slot for
// slot as the earlier stores wrote (CUTRACE_COMPACT=0), with fewer instructions per event:
//   - a record's second slot (PAYLOAD, EXT, a wide RANGE's times) is addressed by the store's
//     immediate offset, [a + 8], not by an address of its own;
//   - the capacity tests compare the cursor with constants (`c < MaxEvents`, `c < MaxEvents - 1`),
//     no `c + 1` is formed; a record split by the row's end keeps its first slot;
//   - the record's address a is the buffer (a kernel parameter) plus (the row's first slot +
//     cursor) * 8, as before; with CUTRACE_COMPACT=1, the row's record 0 kept as a 64-bit address
//     plus cursor * 8 (one instruction fewer, two registers more live across the kernel's loops:
//     slower on the SGEMM measured).
#ifndef CUTRACE_DEVICE_COMPACT_H
#define CUTRACE_DEVICE_COMPACT_H

#include <cstdint>
#include <cutrace/map.h>

// CUTRACE_EVICT_FIRST=1, a measurement switch: the records' stores with the evict-first hint
// (`st.global.cs`), so they take no L2 space the kernel's own data would keep. No measurable
// effect on the hopper GEMM or the SGEMM (docs/recorder-designs.md, "One clock at a
// boundary").
#if defined(CUTRACE_EVICT_FIRST) && CUTRACE_EVICT_FIRST
#define CUTRACE_DETAIL_STORE8 "st.global.cs.v2.u32"
#else
#define CUTRACE_DETAIL_STORE8 "st.global.v2.u32"
#endif

namespace cutrace::detail {

// Slots `addr` (when `p0` holds) and `addr + 8` (when `p1` holds), written as PTX so both stay
// predicated stores and the second takes the first's address with an immediate offset.
__device__ __forceinline__ void store8x2_if(bool p0, bool p1, uint64_t addr, uint32_t a, uint32_t b,
                                            uint32_t c, uint32_t d) {
  asm volatile("{\n\t"
               ".reg .pred p, q;\n\t"
               "setp.ne.u32 p, %0, 0;\n\t"
               "setp.ne.u32 q, %1, 0;\n\t"
               "@p " CUTRACE_DETAIL_STORE8 " [%2], {%3, %4};\n\t"
               "@q " CUTRACE_DETAIL_STORE8 " [%2+8], {%5, %6};\n\t"
               "}" ::"r"(uint32_t(p0)),
               "r"(uint32_t(p1)), "l"(addr), "r"(a), "r"(b), "r"(c), "r"(d));
}

// One 8-byte slot when `pred` holds (the PAYLOAD of a narrow RANGE after its EXT).
__device__ __forceinline__ void store8_at_if(bool pred, uint64_t addr, uint32_t a, uint32_t b) {
  asm volatile("{\n\t"
               ".reg .pred p;\n\t"
               "setp.ne.u32 p, %0, 0;\n\t"
               "@p " CUTRACE_DETAIL_STORE8 " [%1], {%2, %3};\n\t"
               "}" ::"r"(uint32_t(pred)),
               "l"(addr), "r"(a), "r"(b));
}

// The records of one row: record slot i is at `base` + (`first` + i) * 8, and `cursor` counts the
// slots attempted (bit 31 set in threads that do not write: the capacity test is the writer test
// too).
template <uint32_t MaxEvents> struct CompactRow {
  // Whether slots c and c + 1 are both below the capacity: one compare with a constant.
  __device__ __forceinline__ static bool two_fit(uint32_t c) {
    return MaxEvents > 1 && c < MaxEvents - 1;
  }
  __device__ __forceinline__ static uint64_t at(uint64_t base, uint32_t first, uint32_t c) {
    return base + uint64_t(first + c) * 8;
  }

  __device__ __forceinline__ static uint32_t head(RecordKind kind, uint32_t site) {
    return (uint32_t(kind) << kKindShift) | (site & kSiteMask);
  }

  // BEGIN, END or INSTANT {head, t}, then its PAYLOAD when `payload` is not 0. A constant 0, as
  // the generated code passes for an annotation without one, leaves a store whose predicate is
  // constant false, which ptxas removes (as it does for the default stores).
  __device__ __forceinline__ static void event(uint64_t base, uint32_t first, uint32_t &cursor,
                                               bool cond, uint32_t kind_site, uint32_t t,
                                               int32_t payload) {
    const uint32_t c = cursor;
    const bool paid = payload != 0;
    store8x2_if(cond && c < MaxEvents, cond && paid && two_fit(c), at(base, first, c), kind_site, t,
                head(RecordKind::payload, kind_site), uint32_t(payload));
    cursor = cond ? c + 1 + uint32_t(paid) : c;
  }

  // A wide RANGE {head, payload}, {begin, end}; at the row's end its head may fit without its
  // times (the decoder reports such a range as cut).
  __device__ __forceinline__ static void wide(uint64_t base, uint32_t first, uint32_t &cursor,
                                              bool cond, uint32_t site, int32_t payload,
                                              uint32_t begin, uint32_t end) {
    const uint32_t c = cursor;
    store8x2_if(cond && c < MaxEvents, cond && two_fit(c), at(base, first, c),
                kRangeBit | kWideRange | (site & kSiteMask), uint32_t(payload), begin, end);
    cursor = cond ? c + 2 : c;
  }

  // A narrow RANGE {head with its length, end}; its EXT {begin} when it lasted kRangeLong ticks
  // or more; its PAYLOAD when `payload` is not 0 (with a constant 0: one record, one more
  // predicated store for a long one).
  __device__ __forceinline__ static void narrow(uint64_t base, uint32_t first, uint32_t &cursor,
                                                bool cond, uint32_t site, int32_t payload,
                                                uint32_t begin, uint32_t end) {
    const uint32_t c = cursor;
    const uint32_t length = end - begin;
    const bool long_range = length >= kRangeLong;
    const bool paid = payload != 0;
    const uint32_t kind_site = kRangeBit | (site & kSiteMask);
    const uint64_t a = at(base, first, c);
    store8x2_if(cond && c < MaxEvents, cond && long_range && two_fit(c), a,
                kind_site | (min(length, kRangeLong) << kRangeLengthShift), end,
                head(RecordKind::ext, site), begin);
    const uint32_t p = c + 1 + uint32_t(long_range);
    store8_at_if(cond && paid && p < MaxEvents, a + (long_range ? 16 : 8),
                 head(RecordKind::payload, site), uint32_t(payload));
    cursor = cond ? p + uint32_t(paid) : c;
  }
};

} // namespace cutrace::detail

#endif // CUTRACE_DEVICE_COMPACT_H
